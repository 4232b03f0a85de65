import type { Book } from '../../api/books.js'
import { strings } from '../../strings/index.js'
import { visibleControls } from '../../ui/safe-text.js'

/** Props of {@link BookActions}: the buttons given are shown. */
export interface BookActionsProps {
  book: Book
  onHistory?: (book: Book) => void
  onEdit?: (book: Book) => void
  onDelete?: (book: Book) => void
}

/** A row's History, Edit and Delete buttons, each named with the book's title. */
export function BookActions({ book, onHistory, onEdit, onDelete }: BookActionsProps) {
  const title = visibleControls(book.title)
  return (
    <>
      {onHistory && (
        <button type="button" aria-label={strings.books.historyOf(book.title)} onClick={() => onHistory(book)}>
          {strings.books.history}
        </button>
      )}
      {onEdit && (
        <button type="button" aria-label={strings.books.editBook(title)} onClick={() => onEdit(book)}>
          {strings.books.edit}
        </button>
      )}
      {onDelete && (
        <button type="button" class="danger" aria-label={strings.books.deleteBook(title)} onClick={() => onDelete(book)}>
          {strings.books.delete}
        </button>
      )}
    </>
  )
}
