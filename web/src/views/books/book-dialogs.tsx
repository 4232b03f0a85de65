import type { Book } from '../../api/books.js'
import { strings } from '../../strings/index.js'
import { useUi } from '../../app-context.js'
import { visibleControls } from '../../ui/safe-text.js'
import { BookForm } from './book-form.js'
import { BookHistory } from './book-history.js'
import { DeleteBooks } from './delete-books.js'

/** The dialog open over the list, if any. */
export type BookDialog = { kind: 'add' } | { kind: 'edit'; id: number } | { kind: 'delete'; books: Book[] } | { kind: 'history'; id: number }

/** Props of {@link BookDialogs}. */
export interface BookDialogsProps {
  dialog: BookDialog | undefined
  onClose: () => void
  /** The book being edited was changed by someone else meanwhile. */
  onChangedElsewhere: (id: number) => void
  /** `books` were deleted (some may have failed): the list drops them from its selection and offers Undo. */
  onDeleted: (books: Book[], deleted: number) => void
  /** Re-reads the list after any change. */
  reload: () => void
}

/**
 * The book list's dialogs: add, edit, delete (one book or the selection) and a book's history.
 * Each closes itself when done, says what happened in the status line and re-reads the list.
 */
export function BookDialogs({ dialog, onClose, onChangedElsewhere, onDeleted, reload }: BookDialogsProps) {
  const { announce } = useUi()
  if (dialog?.kind === 'add') {
    return (
      <BookForm
        onClose={onClose}
        onDone={(book) => {
          onClose()
          announce(strings.books.created(visibleControls(book.title)))
          reload()
        }}
      />
    )
  }
  if (dialog?.kind === 'edit') {
    return (
      <BookForm
        id={dialog.id}
        onClose={onClose}
        onChangedElsewhere={() => onChangedElsewhere(dialog.id)}
        onDone={(book, outcome) => {
          onClose()
          if (outcome === 'saved') announce(strings.books.saved(visibleControls(book.title)))
          if (outcome === 'merged') announce(strings.books.merged(visibleControls(book.title)))
          reload()
        }}
      />
    )
  }
  if (dialog?.kind === 'history') return <BookHistory id={dialog.id} onClose={onClose} onRestored={() => reload()} />
  if (dialog?.kind === 'delete') {
    return (
      <DeleteBooks
        books={dialog.books}
        onClose={onClose}
        onDone={(deleted, failed) => {
          onClose()
          onDeleted(dialog.books, deleted)
          announce([deleted > 0 ? strings.books.deleted(deleted) : '', failed > 0 ? strings.books.deleteFailed(failed) : ''].filter(Boolean).join(' '))
          reload()
        }}
      />
    )
  }
  return null
}
