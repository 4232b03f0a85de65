import { BookServiceError, type Book } from '../../../../src/client/index.js'
import { runLimited } from '../../api/run-limited.js'
import { strings } from '../../strings/index.js'
import { useUi } from '../../app-context.js'
import { FormError } from '../../ui/form-error.js'
import { Modal } from '../../ui/modal.js'
import { visibleControls } from '../../ui/safe-text.js'
import { useSubmit } from '../../ui/use-submit.js'

/** How many `DELETE /book/{id}` requests a bulk delete keeps in flight. */
const DELETE_CONCURRENCY = 4
/** Books listed by name in the confirmation; more are counted. */
const LISTED = 10

/** Props of {@link DeleteBooks}. */
export interface DeleteBooksProps {
  books: Book[]
  onClose: () => void
  /** How many were deleted (a book already gone counts as deleted) and how many failed. */
  onDone: (deleted: number, failed: number) => void
}

/**
 * The confirmation before deleting one book or several: it names them, and on "Delete" sends
 * `DELETE /book/{id}` for each, a few at a time. A 404 means someone deleted it already.
 */
export function DeleteBooks({ books, onClose, onDone }: DeleteBooksProps) {
  const { client } = useUi()
  const { busy, message, run } = useSubmit()

  async function deleteAll() {
    const outcomes = await runLimited(books, DELETE_CONCURRENCY, (book) => client.deleteBook(book.id))
    const failures = outcomes.filter(
      (outcome) => outcome.status === 'rejected' && !(outcome.reason instanceof BookServiceError && outcome.reason.status === 404)
    ) as PromiseRejectedResult[]
    // A 401 ends the session: nothing more to say here.
    const ended = failures.find((failure) => failure.reason instanceof BookServiceError && failure.reason.status === 401)
    if (ended) throw ended.reason
    // Some deleted: the list says how many failed; none deleted: the dialog stays with the reason.
    if (failures.length === books.length) throw failures[0]!.reason
    onDone(books.length - failures.length, failures.length)
  }

  return (
    <Modal title={strings.confirmDelete.title(books.length)} onClose={onClose}>
      <ul class="doomed">
        {books.slice(0, LISTED).map((book) => (
          <li key={book.id}><bdi>{strings.confirmDelete.book(visibleControls(book.title), visibleControls(book.author), book.year)}</bdi></li>
        ))}
        {books.length > LISTED && <li>{strings.transfer.more(books.length - LISTED)}</li>}
      </ul>
      <p>{strings.confirmDelete.intro}</p>
      <FormError message={message} />
      <div class="buttons">
        <button type="button" class="danger" disabled={busy} onClick={() => void run(deleteAll)}>
          {busy ? strings.confirmDelete.deleting : strings.confirmDelete.confirm}
        </button>
        <button type="button" disabled={busy} onClick={onClose}>
          {strings.cancel}
        </button>
      </div>
    </Modal>
  )
}
