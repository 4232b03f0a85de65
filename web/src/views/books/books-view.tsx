import { useEffect, useReducer, useRef, useState } from 'preact/hooks'
import { listBooks, undoDelete, type Book, type BookPage, type ListQuery } from '../../api/books.js'
import { runLimited } from '../../api/run-limited.js'
import { apiQuery, rememberQuery } from '../../routing/view-state.js'
import { strings } from '../../strings/index.js'
import { useUi } from '../../app-context.js'
import { errorMessage } from '../../ui/error-message.js'
import { visibleControls } from '../../ui/safe-text.js'
import { BookFilters, hasFilters } from './book-filters.js'
import { BookForm } from './book-form.js'
import { BookHistory } from './book-history.js'
import { BooksTable } from './books-table.js'
import { DeleteBooks } from './delete-books.js'
import { Pager } from './pager.js'

/** The dialog open over the list, if any. */
type BookDialog = { kind: 'add' } | { kind: 'edit'; id: number } | { kind: 'delete'; books: Book[] } | { kind: 'history'; id: number }

/** Props of {@link BooksView}. */
export interface BooksViewProps {
  /** The list's settings, from the URL. */
  query: ListQuery
  navigate: (query: ListQuery, options?: { replace?: boolean }) => void
}

/** Changes of the live feed arriving this close together cause one re-read. */
const CHANGE_SETTLE_MS = 150
/** How long a row changed elsewhere stays highlighted. */
const HIGHLIGHT_MS = 3000
/** How long the page offers to undo a delete (README "History and restore"). */
const UNDO_MS = 60_000

/** The list's settings without its position: a new filter or sort starts at the first page. */
const filterKey = (query: ListQuery) => JSON.stringify(apiQuery({ ...query, after: undefined }))

/**
 * The books: filters and search, the sortable table one page at a time, and (for editors and
 * admins) adding, editing and deleting, one or several at once. The settings live in the URL
 * (a link reproduces the view) and are remembered for the next visit. Changes of the live feed
 * re-read the page, and mark the row being edited when someone else changed it.
 */
export function BooksView({ query, navigate }: BooksViewProps) {
  const { client, session, announce, subscribe } = useUi()
  const write = session.rights.write
  const [result, setResult] = useState<{ page?: BookPage; error?: string; loading: boolean }>({ loading: true })
  const [reloads, reload] = useReducer((count: number, _action: void) => count + 1, 0)
  const [selected, setSelected] = useState<ReadonlySet<number>>(new Set())
  const [dialog, setDialog] = useState<BookDialog>()
  const [changedWhileEditing, setChangedWhileEditing] = useState<number>()
  const [highlighted, setHighlighted] = useState<ReadonlySet<number>>(new Set())
  // The books just deleted, while their Undo is offered.
  const [undo, setUndo] = useState<{ books: Book[]; busy: boolean }>()
  // Where each page starts, by its `after`, and which page came before it: paging is by position
  // (keyset), so the page remembers the way it came for "Previous" and the "Books 26 to 50" line.
  const positions = useRef({ key: '', offsets: new Map<string | undefined, number>(), previous: new Map<string | undefined, string | undefined>() })
  const rendered = useRef(false)

  const key = JSON.stringify(apiQuery(query))
  if (positions.current.key !== filterKey(query)) {
    positions.current = { key: filterKey(query), offsets: new Map([[undefined, 0]]), previous: new Map() }
  }

  useEffect(() => rememberQuery(query), [key])
  useEffect(() => {
    let current = true
    setResult((previous) => ({ ...previous, loading: true }))
    listBooks(client, apiQuery(query)).then(
      (page) => {
        if (!current) return
        setResult({ page, loading: false })
        // A row that held the focus (its Delete button) may be gone: keep keyboard users in the view.
        setTimeout(() => {
          if (document.activeElement === document.body) document.querySelector<HTMLElement>('main h1')?.focus()
        })
      },
      (error: unknown) => current && setResult({ error: errorMessage(error), loading: false })
    )
    return () => {
      current = false
    }
  }, [key, reloads])

  // The first list on screen: a mark for the page's benchmark (bench/web-page.ts).
  useEffect(() => {
    if (result.page && !rendered.current) {
      rendered.current = true
      performance.mark('book-list-rendered')
    }
  }, [result.page])

  useEffect(() => {
    let settle: ReturnType<typeof setTimeout> | undefined
    const clear = new Set<ReturnType<typeof setTimeout>>()
    const unsubscribe = subscribe((change) => {
      if (change.id !== null) {
        const id = change.id
        setHighlighted((ids) => new Set(ids).add(id))
        const timer = setTimeout(() => {
          clear.delete(timer)
          setHighlighted((ids) => new Set([...ids].filter((other) => other !== id)))
        }, HIGHLIGHT_MS)
        clear.add(timer)
      }
      clearTimeout(settle)
      settle = setTimeout(() => reload(), CHANGE_SETTLE_MS)
    })
    return () => {
      unsubscribe()
      clearTimeout(settle)
      clear.forEach(clearTimeout)
    }
  }, [subscribe])

  // The Undo offer lasts UNDO_MS after the delete.
  useEffect(() => {
    if (!undo || undo.busy) return undefined
    const timer = setTimeout(() => setUndo(undefined), UNDO_MS)
    return () => clearTimeout(timer)
  }, [undo?.books])

  async function undoDeletes() {
    if (!undo) return
    setUndo({ ...undo, busy: true })
    const outcomes = await runLimited(undo.books, 4, (book) => undoDelete(client, book.id))
    const back = outcomes.filter((outcome) => outcome.status === 'fulfilled' && outcome.value !== undefined).length
    setUndo(undefined)
    announce(back === undo.books.length ? strings.undo.done(back) : strings.undo.failed)
    reload()
  }

  const page = result.page
  const books = page?.books ?? []
  const visibleSelection = books.filter((book) => selected.has(book.id))
  const limit = Number(apiQuery(query).limit)
  const offset = positions.current.offsets.get(query.after)

  function closeDialog() {
    setDialog(undefined)
    setChangedWhileEditing(undefined)
  }

  function goTo(after: string | undefined, options?: { replace?: boolean }) {
    navigate({ ...query, after }, options)
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
      {undo && (
        <div class="undo-bar">
          <p>{strings.undo.deleted(undo.books.length)}</p>
          <button type="button" disabled={undo.busy} onClick={() => void undoDeletes()}>
            {undo.busy ? strings.undo.undoing : strings.undo.undo}
          </button>
        </div>
      )}
      {result.error && (
        <div class="notice" role="alert">
          <p>
            {strings.books.loadFailed} {result.error}
          </p>
          <button type="button" onClick={() => reload()}>
            {strings.books.retry}
          </button>
        </div>
      )}
      {page && books.length === 0 && (
        <div class="empty">
          {hasFilters(query) ? (
            <>
              <p>{strings.books.noMatch}</p>
              <button type="button" onClick={() => navigate({ sort: query.sort, limit: query.limit })}>
                {strings.books.clearFilters}
              </button>
            </>
          ) : query.after !== undefined ? (
            <button type="button" onClick={() => goTo(undefined)}>
              {strings.books.firstPage}
            </button>
          ) : (
            <>
              <p>{write ? strings.books.empty : strings.books.emptyReader}</p>
              {write && (
                <button type="button" class="primary" onClick={() => setDialog({ kind: 'add' })}>
                  {strings.books.add}
                </button>
              )}
            </>
          )}
        </div>
      )}
      {page && books.length > 0 && (
        <BooksTable
          books={books}
          busy={result.loading}
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
      {!page && !result.error && <p aria-busy="true">{strings.loading}</p>}
      {(books.length > 0 || query.after !== undefined) && (
        <Pager
          limit={query.limit}
          onLimit={(size) => navigate({ ...query, limit: size, after: undefined })}
          count={books.length}
          offset={offset}
          total={page?.total}
          atStart={query.after === undefined}
          previous={positions.current.previous.has(query.after) ? () => goTo(positions.current.previous.get(query.after)) : undefined}
          first={() => goTo(undefined)}
          next={
            page?.cursor === undefined
              ? undefined
              : () => {
                  const next = page.cursor!
                  if (offset !== undefined) positions.current.offsets.set(next, offset + limit)
                  positions.current.previous.set(next, query.after)
                  goTo(next)
                }
          }
        />
      )}
      {dialog?.kind === 'add' && (
        <BookForm
          onClose={closeDialog}
          onDone={(book) => {
            closeDialog()
            announce(strings.books.created(visibleControls(book.title)))
            reload()
          }}
        />
      )}
      {dialog?.kind === 'edit' && (
        <BookForm
          id={dialog.id}
          onClose={closeDialog}
          onChangedElsewhere={() => setChangedWhileEditing(dialog.id)}
          onDone={(book, outcome) => {
            closeDialog()
            if (outcome === 'saved') announce(strings.books.saved(visibleControls(book.title)))
            if (outcome === 'merged') announce(strings.books.merged(visibleControls(book.title)))
            reload()
          }}
        />
      )}
      {dialog?.kind === 'history' && <BookHistory id={dialog.id} onClose={closeDialog} onRestored={() => reload()} />}
      {dialog?.kind === 'delete' && (
        <DeleteBooks
          books={dialog.books}
          onClose={closeDialog}
          onDone={(deleted, failed) => {
            closeDialog()
            setSelected((ids) => new Set([...ids].filter((id) => !dialog.books.some((book) => book.id === id))))
            announce([deleted > 0 ? strings.books.deleted(deleted) : '', failed > 0 ? strings.books.deleteFailed(failed) : ''].filter(Boolean).join(' '))
            if (deleted > 0) setUndo({ books: dialog.books, busy: false })
            reload()
          }}
        />
      )}
    </>
  )
}
