import { useEffect, useMemo, useRef, useState } from 'preact/hooks'
import type { Book, BookInput } from '../../../../src/client/index.js'
import { failureMessage } from '../../book/messages.js'
import { BOOK_FIELDS, checkBook, yearFromText, type BookField } from '../../book/rules.js'
import { strings } from '../../strings/index.js'
import { useUi } from '../../app-context.js'
import { FormButtons } from '../../ui/form-buttons.js'
import { FormError } from '../../ui/form-error.js'
import { Modal } from '../../ui/modal.js'
import { BookFields, type Draft } from './book-fields.js'
import { ConflictChoice } from './conflict-choice.js'
import { useBookSave, type FormOutcome } from './use-book-save.js'

export type { FormOutcome }

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

/**
 * The add and edit form, in a dialog: `Title`, `Author`, `Year`, each checked with the API's
 * rules (`web/src/book/rules.ts`) as the person types, the message next to the field. Nothing is
 * sent while a field is invalid. The service's answer is shown when it still refuses, and a
 * failed save keeps everything typed. Saving, and merging with a change made meanwhile, is
 * {@link useBookSave}'s; fields both people changed are shown to choose ({@link ConflictChoice}).
 */
export function BookForm({ id, onClose, onDone, onChangedElsewhere }: BookFormProps) {
  const { subscribe } = useUi()
  const [draft, setDraft] = useState<Draft>({ title: '', author: '', year: '' })
  const [touched, setTouched] = useState<ReadonlySet<BookField>>(new Set())
  const [submitted, setSubmitted] = useState(false)
  const [changedElsewhere, setChangedElsewhere] = useState(false)
  const inputs: Record<BookField, { current: HTMLInputElement | null }> = { title: useRef(null), author: useRef(null), year: useRef(null) }
  const form = useBookSave(
    id,
    (book) => {
      setDraft(draftOf(book))
      setChangedElsewhere(false)
    },
    onDone
  )

  const failures = useMemo(() => checkBook(bodyOf(draft)), [draft])
  const shownError = (field: BookField) => {
    const failure = failures[field]
    return failure && (submitted || touched.has(field)) ? failureMessage(field, failure) : undefined
  }

  useEffect(() => {
    if (id === undefined) return undefined
    return subscribe((change) => {
      if (change.id !== id || form.quiet()) return
      setChangedElsewhere(true)
      onChangedElsewhere?.()
    })
  }, [])

  function update(field: BookField, value: string) {
    setDraft((current) => ({ ...current, [field]: value }))
    setTouched((fields) => (fields.has(field) ? fields : new Set(fields).add(field)))
  }

  function submit(event: Event) {
    event.preventDefault()
    setSubmitted(true)
    const invalid = BOOK_FIELDS.find((field) => failures[field] !== undefined)
    if (invalid) {
      form.setMessage(strings.form.fixFirst)
      inputs[invalid].current?.focus()
      return
    }
    void form.save(bodyOf(draft) as unknown as BookInput, { asNew: form.deleted })
  }

  if (form.conflict) {
    return <ConflictChoice conflict={form.conflict} busy={form.busy} message={form.message} save={form.save} onClose={onClose} onTaken={(book) => onDone(book, 'taken')} />
  }
  return (
    <Modal title={id === undefined ? strings.form.addTitle : strings.form.editTitle(id)} onClose={onClose}>
      {form.loading ? (
        <p aria-busy="true">{strings.loading}</p>
      ) : (
        <form class="book-form" noValidate onSubmit={submit}>
          {changedElsewhere && !form.deleted && (
            <p class="notice" role="status">
              {strings.form.changedElsewhere}
            </p>
          )}
          {form.deleted && (
            <p class="notice" role="alert">
              {strings.form.deletedElsewhere}
            </p>
          )}
          <BookFields draft={draft} inputs={inputs} error={shownError} onInput={update} />
          <FormError message={form.message} />
          <FormButtons busy={form.busy} label={form.deleted ? strings.form.addAgain : strings.save} onCancel={onClose} />
        </form>
      )}
    </Modal>
  )
}
