import { useRef, useState } from 'preact/hooks'
import { BookServiceError, type Book, type BookInput, type TaggedBook } from '../../../../src/client/index.js'
import { mergeBooks, type BookMerge } from '../../book/merge.js'
import { strings } from '../../strings/index.js'
import { idempotencyKeys } from '../../api/books.js'
import { useUi } from '../../app-context.js'
import { errorMessage } from '../../ui/error-message.js'
import { useSubmit, type Submit } from '../../ui/use-submit.js'
import { useStoredBook } from './use-stored-book.js'

/**
 * How the dialog ended: a new book, a saved edit, a saved edit merged with someone else's change
 * to other fields, or the other person's version taken.
 */
export type FormOutcome = 'created' | 'saved' | 'merged' | 'taken'

/** The stored version after a 412, and its merge with what the person typed. */
export interface BookConflict {
  stored: TaggedBook
  merge: BookMerge
}

/** What {@link useBookSave} gives the form. */
export interface BookSave extends Pick<Submit, 'busy' | 'message' | 'setMessage'> {
  /** True until the edited book is read. */
  loading: boolean
  /** The edited book is gone (404): the form offers to add it again. */
  deleted: boolean
  /** Fields both people changed, to choose between. */
  conflict: BookConflict | undefined
  /** Whether the book is being read or saved now: a change of the live feed then is this form's own. */
  quiet: () => boolean
  /**
   * Sends `book`: a new one (`id` absent or `asNew`), else over `version` (by default the one the
   * form holds); `merged` when it already holds someone else's change (the outcome then says so).
   */
  save: (book: BookInput, options?: { version?: string; asNew?: boolean; merged?: boolean }) => Promise<void>
}

/**
 * Reads the book `id` (when given) and saves the form's book. An edit sends `If-Match` with the
 * version it opened: on 412 it merges field by field with the stored version against the one it
 * opened ({@link mergeBooks}): a field only one side changed is taken from that side and saved
 * without asking; only fields both changed differently become the `conflict`. A new book is sent
 * with an `Idempotency-Key`, the same for the same fields, so pressing Save again after a lost
 * answer stores it once. `onBook` receives the book to show in the fields (read, or merged).
 */
export function useBookSave(id: number | undefined, onBook: (book: Book) => void, onDone: (book: Book, outcome: FormOutcome) => void): BookSave {
  const { client } = useUi()
  const submission = useSubmit()
  const stored = useStoredBook(id, onBook, submission.setMessage)
  const [conflict, setConflict] = useState<BookConflict>()
  const sending = useRef(false)
  const [keyOf] = useState(idempotencyKeys)

  const save: BookSave['save'] = async (book, { version, asNew = false, merged = false } = {}) => {
    sending.current = true
    await submission.run(
      async () => {
        try {
          if (id === undefined || asNew) {
            onDone(await client.createBook(book, { idempotencyKey: keyOf(JSON.stringify(book)) }), 'created')
          } else {
            onDone(await client.updateBook(id, book, { ifMatch: version ?? stored.etag ?? '*' }), merged ? 'merged' : 'saved')
          }
        } catch (error) {
          if (!(error instanceof BookServiceError) || id === undefined) throw error
          if (error.status === 412) return mergeWithStored(id, book, merged)
          if (error.status === 404) return showDeleted()
          throw error
        }
      },
      (error) => (error instanceof BookServiceError && error.status === 400 ? strings.form.refused(error.message) : undefined)
    )
    sending.current = false
  }

  /**
   * After a 412: reads the stored version and merges `mine` with it against the base version. Without a
   * field both changed, the merge is saved at once over the stored version (another 412 merges
   * again); otherwise the conflicting fields are shown to choose.
   */
  async function mergeWithStored(bookId: number, mine: BookInput, mergedBefore: boolean) {
    let current: TaggedBook
    try {
      current = await client.getTaggedBook(bookId)
    } catch (error) {
      if (error instanceof BookServiceError && error.status === 404) showDeleted()
      else submission.setMessage(errorMessage(error))
      return
    }
    const merge = mergeBooks(stored.base.current ?? current.book, mine, current.book)
    stored.take(current)
    onBook(merge.merged as Book)
    if (merge.conflicts.length > 0) {
      setConflict({ stored: current, merge })
      return
    }
    await save(merge.merged, { version: current.etag, merged: mergedBefore || merge.theirs.length > 0 })
  }

  /** The book is gone: back to the form, which offers to add it again. */
  function showDeleted() {
    setConflict(undefined)
    stored.setDeleted(true)
  }

  const { busy, message, setMessage } = submission
  const quiet = () => stored.reading.current || sending.current
  return { loading: stored.loading, deleted: stored.deleted, conflict, quiet, busy, message, setMessage, save }
}
