import { useEffect, useMemo, useRef, useState } from 'preact/hooks'
import { BookServiceError, type Book, type BookInput, type TaggedBook } from '../../../../src/client/index.js'
import { mergeBooks, type BookMerge } from '../../book/merge.js'
import { failureMessage } from '../../book/messages.js'
import { BOOK_FIELDS, checkBook, yearBounds, yearFromText, type BookField } from '../../book/rules.js'
import { strings } from '../../strings/index.js'
import { useUi } from '../../app-context.js'
import { errorMessage } from '../../ui/error-message.js'
import { Field } from '../../ui/field.js'
import { Modal } from '../../ui/modal.js'
import { ConflictChoice } from './conflict-choice.js'

/** The fields as typed. */
type Draft = Record<BookField, string>

/**
 * How the dialog ended: a new book, a saved edit, a saved edit merged with someone else's change
 * to other fields, or the other person's version taken.
 */
export type FormOutcome = 'created' | 'saved' | 'merged' | 'taken'

/** Props of {@link BookForm}. */
export interface BookFormProps {
  /** The book to edit; a new book when absent. */
  id?: number
  onClose: () => void
  onDone: (book: Book, outcome: FormOutcome) => void
  /** The live feed says someone else changed the book while this form is open. */
  onChangedElsewhere?: () => void
}

const draftOf = (book: Book): Draft => ({ title: book.title, author: book.author, year: String(book.year) })

/** The draft as the body the API reads: `year` as the number typed (or the text, which then fails). */
const bodyOf = (draft: Draft): Record<string, unknown> => ({ title: draft.title, author: draft.author, year: yearFromText(draft.year) })

/** A random `Idempotency-Key` (works on plain-HTTP pages too, unlike `crypto.randomUUID`). */
function randomKey(): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (byte) => byte.toString(16).padStart(2, '0')).join('')
}

/**
 * The add and edit form, in a dialog: `Title`, `Author`, `Year`, each checked with the API's
 * rules (`web/src/book/rules.ts`) as the person types, the message next to the field. Nothing is
 * sent while a field is invalid. The service's answer is shown when it still refuses, and a
 * failed save keeps everything typed. An edit sends `If-Match` with the version it opened: on 412
 * it merges field by field with the stored version against the one it opened ({@link mergeBooks}):
 * a field only one side changed is taken from that side and saved without asking; only fields
 * both changed differently are shown to choose ({@link ConflictChoice}); a new book is sent with an `Idempotency-Key`,
 * the same for the same fields, so pressing Save again after a lost answer stores it once.
 */
export function BookForm({ id, onClose, onDone, onChangedElsewhere }: BookFormProps) {
  const { client, subscribe } = useUi()
  const [draft, setDraft] = useState<Draft>({ title: '', author: '', year: '' })
  const [etag, setEtag] = useState<string>()
  const [loading, setLoading] = useState(id !== undefined)
  const [touched, setTouched] = useState<ReadonlySet<BookField>>(new Set())
  const [submitted, setSubmitted] = useState(false)
  const [message, setMessage] = useState<string>()
  const [saving, setSaving] = useState(false)
  const [conflict, setConflict] = useState<{ stored: TaggedBook; merge: BookMerge }>()
  // The version the person started from: the one opened, then the stored one each merge was made with.
  const base = useRef<BookInput | undefined>(undefined)
  const [deleted, setDeleted] = useState(false)
  const [changedElsewhere, setChangedElsewhere] = useState(false)
  const busy = useRef(id !== undefined)
  const keys = useRef(new Map<string, string>())
  const inputs: Record<BookField, { current: HTMLInputElement | null }> = { title: useRef(null), author: useRef(null), year: useRef(null) }

  const failures = useMemo(() => checkBook(bodyOf(draft)), [draft])
  const shownError = (field: BookField) => {
    const failure = failures[field]
    return failure && (submitted || touched.has(field)) ? failureMessage(field, failure) : undefined
  }

  useEffect(() => {
    if (id === undefined) return
    client.getTaggedBook(id).then(
      (current) => {
        busy.current = false
        setDraft(draftOf(current.book))
        base.current = current.book
        setEtag(current.etag)
        setLoading(false)
      },
      (error: unknown) => {
        busy.current = false
        setLoading(false)
        if (error instanceof BookServiceError && error.status === 404) setDeleted(true)
        else setMessage(errorMessage(error))
      }
    )
  }, [])

  useEffect(() => {
    if (id === undefined) return undefined
    return subscribe((change) => {
      if (change.id !== id || busy.current) return
      setChangedElsewhere(true)
      onChangedElsewhere?.()
    })
  }, [])

  function update(field: BookField, value: string) {
    setDraft((current) => ({ ...current, [field]: value }))
    setTouched((fields) => (fields.has(field) ? fields : new Set(fields).add(field)))
  }

  /**
   * Sends `book`: a new one (`id` absent or `asNew`), or over the version `version`; `merged` when
   * it already holds someone else's change (the outcome then says so).
   */
  async function save(book: BookInput, version?: string, asNew = false, merged = false) {
    busy.current = true
    setSaving(true)
    setMessage(undefined)
    try {
      if (id === undefined || asNew) {
        const body = JSON.stringify(book)
        if (!keys.current.has(body)) keys.current.set(body, randomKey())
        onDone(await client.createBook(book, { idempotencyKey: keys.current.get(body) }), 'created')
      } else {
        onDone(await client.updateBook(id, book, { ifMatch: version ?? etag ?? '*' }), merged ? 'merged' : 'saved')
      }
    } catch (error) {
      if (!(error instanceof BookServiceError)) setMessage(errorMessage(error))
      else if (error.status === 412 && id !== undefined) await mergeWithStored(id, book, merged)
      else if (error.status === 404 && id !== undefined) showDeleted()
      else if (error.status === 400) setMessage(strings.form.refused(error.message))
      else if (error.status !== 401) setMessage(errorMessage(error))
    } finally {
      busy.current = false
      setSaving(false)
    }
  }

  /**
   * After a 412: reads the stored version and merges `mine` with it against {@link base}. Without a
   * field both changed, the merge is saved at once over the stored version (another 412 merges
   * again); otherwise the conflicting fields are shown to choose.
   */
  async function mergeWithStored(bookId: number, mine: BookInput, mergedBefore: boolean) {
    let stored: TaggedBook
    try {
      stored = await client.getTaggedBook(bookId)
    } catch (error) {
      if (error instanceof BookServiceError && error.status === 404) showDeleted()
      else setMessage(errorMessage(error))
      return
    }
    const merge = mergeBooks(base.current ?? stored.book, mine, stored.book)
    base.current = stored.book
    setEtag(stored.etag)
    setDraft(draftOf(merge.merged as Book))
    setChangedElsewhere(false)
    if (merge.conflicts.length > 0) {
      setConflict({ stored, merge })
      return
    }
    await save(merge.merged, stored.etag, false, mergedBefore || merge.theirs.length > 0)
  }

  /** The book is gone: back to the form, which offers to add it again. */
  function showDeleted() {
    setConflict(undefined)
    setDeleted(true)
  }

  function submit(event: Event, asNew = false) {
    event.preventDefault()
    setSubmitted(true)
    const invalid = BOOK_FIELDS.find((field) => failures[field] !== undefined)
    if (invalid) {
      setMessage(strings.form.fixFirst)
      inputs[invalid].current?.focus()
      return
    }
    void save(bodyOf(draft) as unknown as BookInput, undefined, asNew)
  }

  const title = id === undefined ? strings.form.addTitle : strings.form.editTitle(id)
  if (conflict) {
    const { stored, merge } = conflict
    return (
      <Modal title={strings.conflict.title} onClose={onClose} wide>
        <ConflictChoice
          fields={merge.conflicts}
          mine={merge.merged}
          theirs={stored.book}
          takenFromTheirs={merge.theirs}
          busy={saving}
          message={message}
          onKeepMine={() => {
            // Saved over the version just shown; the choice stays on screen until the answer
            // (another 412 merges with the newer version, another failure shows its message).
            void save(merge.merged, stored.etag, false, merge.theirs.length > 0)
          }}
          onTakeTheirs={() => {
            const chosen = { ...merge.merged }
            for (const field of merge.conflicts) (chosen as Record<BookField, unknown>)[field] = stored.book[field]
            // Nothing of mine left to save: the stored version as it is.
            if (BOOK_FIELDS.every((field) => String(chosen[field]) === String(stored.book[field]))) onDone(stored.book, 'taken')
            else void save(chosen, stored.etag, false, true)
          }}
        />
      </Modal>
    )
  }

  const { minimum, maximum } = yearBounds()
  return (
    <Modal title={title} onClose={onClose}>
      {loading ? (
        <p aria-busy="true">{strings.loading}</p>
      ) : (
        <form class="book-form" noValidate onSubmit={(event) => submit(event, deleted)}>
          {changedElsewhere && !deleted && (
            <p class="notice" role="status">
              {strings.form.changedElsewhere}
            </p>
          )}
          {deleted && (
            <p class="notice" role="alert">
              {strings.form.deletedElsewhere}
            </p>
          )}
          <Field label={strings.form.fields.title} name="title" inputRef={inputs.title} value={draft.title} error={shownError('title')} onInput={(value) => update('title', value)} />
          <Field label={strings.form.fields.author} name="author" inputRef={inputs.author} value={draft.author} error={shownError('author')} onInput={(value) => update('author', value)} />
          <Field
            label={strings.form.fields.year}
            name="year"
            inputMode="numeric"
            inputRef={inputs.year}
            hint={strings.form.yearHint(minimum, maximum)}
            value={draft.year}
            error={shownError('year')}
            onInput={(value) => update('year', value)}
          />
          {message && (
            <p class="form-error" role="alert">
              {message}
            </p>
          )}
          <div class="buttons">
            <button type="submit" class="primary" disabled={saving}>
              {saving ? strings.saving : deleted ? strings.form.addAgain : strings.save}
            </button>
            <button type="button" onClick={onClose}>
              {strings.cancel}
            </button>
          </div>
        </form>
      )}
    </Modal>
  )
}
