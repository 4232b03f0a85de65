import type { Book } from '../../api/books.js'
import { strings } from '../../strings/index.js'
import { SafeText, visibleControls } from '../../ui/safe-text.js'
import { Highlighted } from './highlight.js'

/** The sortable columns, as the API's `sort` names them. */
const COLUMNS = ['id', 'title', 'author', 'year'] as const
type Column = (typeof COLUMNS)[number]

/** Props of {@link BooksTable}. */
export interface BooksTableProps {
  books: Book[]
  /** A newer page is being read (the table stays, marked busy). */
  busy: boolean
  /** The API's `sort`: a column, `-` first for descending. */
  sort: string
  onSort: (sort: string) => void
  /** Whether rows can be selected (editors and admins). */
  selectable: boolean
  selected: ReadonlySet<number>
  onSelect: (selected: ReadonlySet<number>) => void
  /** Rows to highlight: changed through the live feed a moment ago. */
  highlighted: ReadonlySet<number>
  /** The row being edited that someone else changed meanwhile. */
  changedElsewhere?: number
  onEdit?: (book: Book) => void
  onDelete?: (book: Book) => void
  /** Opens the book's History view (every role). */
  onHistory?: (book: Book) => void
  /** The search the page shows (`q`): its matches are marked in each title and author. */
  q?: string
}

/**
 * One page of books as a table: a sort button in each column header (`aria-sort` says the
 * order), and for editors a checkbox and the Edit and Delete buttons on each row, each named
 * with the book's title. Titles and authors show through {@link SafeText}; selected rows are
 * marked (`selected`). On a narrow screen each row shows as a compact card (styles.css).
 */
export function BooksTable(props: BooksTableProps) {
  const { books, sort, selectable, selected, onSelect } = props
  const descending = sort.startsWith('-')
  const sortedBy = sort.replace(/^-/, '') as Column
  const allSelected = books.length > 0 && books.every((book) => selected.has(book.id))
  const actions = props.onEdit !== undefined || props.onDelete !== undefined || props.onHistory !== undefined

  function toggle(id: number, on: boolean) {
    const next = new Set(selected)
    if (on) next.add(id)
    else next.delete(id)
    onSelect(next)
  }

  return (
    <div class="table-wrap">
      <table class="books" aria-busy={props.busy ? 'true' : undefined}>
        <caption class="visually-hidden">{strings.books.caption}</caption>
        <thead>
          <tr>
            {selectable && (
              <th scope="col" class="select">
                <input
                  type="checkbox"
                  aria-label={strings.books.selectAll}
                  checked={allSelected}
                  onChange={(event) => {
                    const on = event.currentTarget.checked
                    const next = new Set(selected)
                    for (const book of books) {
                      if (on) next.add(book.id)
                      else next.delete(book.id)
                    }
                    onSelect(next)
                  }}
                />
              </th>
            )}
            {COLUMNS.map((column) => {
              const active = sortedBy === column
              const label = strings.books.columns[column]
              return (
                <th key={column} scope="col" class={`column-${column}`} aria-sort={active ? (descending ? 'descending' : 'ascending') : undefined}>
                  <button
                    type="button"
                    class="sort"
                    onClick={() => props.onSort(active && !descending ? `-${column}` : column)}
                    aria-label={strings.books.sortBy(label)}
                  >
                    {label}
                    <span aria-hidden="true" class="sort-mark">
                      {active ? (descending ? '▼' : '▲') : '↕'}
                    </span>
                  </button>
                </th>
              )
            })}
            {actions && (
              <th scope="col" class="actions">
                {strings.books.columns.actions}
              </th>
            )}
          </tr>
        </thead>
        <tbody>
          {books.map((book) => {
            const changed = props.changedElsewhere === book.id
            const classes = [props.highlighted.has(book.id) ? 'highlight' : '', changed ? 'changed' : '', selected.has(book.id) ? 'selected' : '']
              .filter(Boolean)
              .join(' ')
            const title = visibleControls(book.title)
            return (
              <tr key={book.id} class={classes || undefined} data-id={book.id}>
                {selectable && (
                  <td class="select">
                    <input
                      type="checkbox"
                      aria-label={strings.books.select(title)}
                      checked={selected.has(book.id)}
                      onChange={(event) => toggle(book.id, event.currentTarget.checked)}
                    />
                  </td>
                )}
                <td class="column-id" data-label={strings.books.columns.id}>
                  {book.id}
                </td>
                <td class="column-title" data-label={strings.books.columns.title}>
                  <SafeText text={book.title} render={(part) => <Highlighted text={part} q={props.q} />} />
                  {changed && <span class="badge"> {strings.books.changedElsewhere}</span>}
                </td>
                <td class="column-author" data-label={strings.books.columns.author}>
                  <SafeText text={book.author} render={(part) => <Highlighted text={part} q={props.q} />} />
                </td>
                <td class="column-year" data-label={strings.books.columns.year}>
                  {book.year}
                </td>
                {actions && (
                  <td class="actions">
                    {props.onHistory && (
                      <button type="button" aria-label={strings.books.historyOf(book.title)} onClick={() => props.onHistory!(book)}>
                        {strings.books.history}
                      </button>
                    )}
                    {props.onEdit && (
                      <button type="button" aria-label={strings.books.editBook(title)} onClick={() => props.onEdit!(book)}>
                        {strings.books.edit}
                      </button>
                    )}
                    {props.onDelete && (
                      <button type="button" class="danger" aria-label={strings.books.deleteBook(title)} onClick={() => props.onDelete!(book)}>
                        {strings.books.delete}
                      </button>
                    )}
                  </td>
                )}
              </tr>
            )
          })}
        </tbody>
      </table>
    </div>
  )
}
