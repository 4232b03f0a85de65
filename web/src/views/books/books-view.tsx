import { useEffect, useRef, useState } from 'preact/hooks'
import { listBooks, type Book, type ListQuery } from '../../api/books.js'
import { apiQuery, rememberQuery } from '../../routing/view-state.js'
import { strings } from '../../strings/index.js'
import { useUi } from '../../app-context.js'
import { LoadFailed } from '../../ui/load-failed.js'
import { useLoad } from '../../ui/use-load.js'
import { BookDialogs, type BookDialog } from './book-dialogs.js'
import { BookFilters } from './book-filters.js'
import { BookPager } from './book-pager.js'
import { BooksEmpty } from './books-empty.js'
import { BooksTable } from './books-table.js'
import { UndoBar, useUndoDelete } from './undo-delete.js'
import { useLiveChanges } from './use-live-changes.js'

/** Props of {@link BooksView}. */
export interface BooksViewProps {
  /** The list's settings, from the URL. */
  query: ListQuery
  navigate: (query: ListQuery, options?: { replace?: boolean }) => void
}

/**
 * The books: filters and search, the sortable table one page at a time, and (for editors and
 * admins) adding, editing and deleting, one or several at once. The settings live in the URL
 * (a link reproduces the view) and are remembered for the next visit. Changes of the live feed
 * re-read the page, and mark the row being edited when someone else changed it.
 */
export function BooksView({ query, navigate }: BooksViewProps) {
  const { client, session } = useUi()
  const write = session.rights.write
  const key = JSON.stringify(apiQuery(query))
  const list = useLoad(() => listBooks(client, apiQuery(query)), [key])
  const [selected, setSelected] = useState<ReadonlySet<number>>(new Set())
  const [dialog, setDialog] = useState<BookDialog>()
  const [changedWhileEditing, setChangedWhileEditing] = useState<number>()
  const highlighted = useLiveChanges(list.reload)
  const undo = useUndoDelete(list.reload)
  const rendered = useRef(false)
  // A page that failed to load shows no rows, not the ones before.
  const page = list.error ? undefined : list.data

  useEffect(() => rememberQuery(query), [key])
  useEffect(() => {
    if (!list.data) return
    // A row that held the focus (its Delete button) may be gone: keep keyboard users in the view.
    setTimeout(() => {
      if (document.activeElement === document.body) document.querySelector<HTMLElement>('main h1')?.focus()
    })
    // The first list on screen: a mark for the page's benchmark (web/bench.ts).
    if (!rendered.current) {
      rendered.current = true
      performance.mark('book-list-rendered')
    }
  }, [list.data])

  const books = page?.books ?? []
  const visibleSelection = books.filter((book) => selected.has(book.id))
  const goTo = (after: string | undefined) => navigate({ ...query, after })
  const closeDialog = () => {
    setDialog(undefined)
    setChangedWhileEditing(undefined)
  }
  const forgetDeleted = (deleted: Book[], count: number) => {
    setSelected((ids) => new Set([...ids].filter((id) => !deleted.some((book) => book.id === id))))
    if (count > 0) undo.offerFor(deleted)
  }

  return (
    <>
      <div class="view-head">
        <h1 tabIndex={-1}>{strings.books.title}</h1>
        {write && (
          <button type="button" class="primary" onClick={() => setDialog({ kind: 'add' })}>
            {strings.books.add}
          </button>
        )}
      </div>
      <BookFilters query={query} onChange={(next) => navigate({ ...next, after: undefined }, { replace: true })} />
      {write && visibleSelection.length > 0 && (
        <div class="bulk">
          <button type="button" class="danger" onClick={() => setDialog({ kind: 'delete', books: visibleSelection })}>
            {strings.books.deleteSelected(visibleSelection.length)}
          </button>
        </div>
      )}
      <UndoBar undo={undo} />
      {list.error && <LoadFailed what={strings.books.loadFailed} error={list.error} onRetry={list.reload} />}
      {page && books.length === 0 && (
        <BooksEmpty query={query} write={write} onClearFilters={() => navigate({ sort: query.sort, limit: query.limit })} onFirstPage={() => goTo(undefined)} onAdd={() => setDialog({ kind: 'add' })} />
      )}
      {page && books.length > 0 && (
        <BooksTable
          books={books}
          busy={list.loading}
          sort={query.sort ?? (query.q ? '' : 'id')}
          onSort={(sort) => navigate({ ...query, sort: sort === 'id' && !query.q ? undefined : sort, after: undefined })}
          q={query.q}
          selectable={write}
          selected={selected}
          onSelect={setSelected}
          highlighted={highlighted}
          changedElsewhere={changedWhileEditing}
          onEdit={write ? (book) => setDialog({ kind: 'edit', id: book.id }) : undefined}
          onDelete={write ? (book) => setDialog({ kind: 'delete', books: [book] }) : undefined}
          onHistory={(book) => setDialog({ kind: 'history', id: book.id })}
        />
      )}
      {!page && !list.error && <p aria-busy="true">{strings.loading}</p>}
      <BookPager query={query} page={page} navigate={navigate} />
      <BookDialogs dialog={dialog} onClose={closeDialog} onChangedElsewhere={setChangedWhileEditing} onDeleted={forgetDeleted} reload={list.reload} />
    </>
  )
}
