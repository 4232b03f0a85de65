import type { Book } from '../../api/books.js'
import { strings } from '../../strings/index.js'
import { DataTable, type Column } from '../../ui/data-table.js'
import { SafeText, visibleControls } from '../../ui/safe-text.js'
import { BookActions } from './book-actions.js'
import { Highlighted } from './highlight.js'

/** The sortable columns, as the API's `sort` names them. */
const SORTABLE = ['id', 'title', 'author', 'year'] as const
type Sortable = (typeof SORTABLE)[number]

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
  const { books, sort, selectable, selected, onSelect, q } = props
  const descending = sort.startsWith('-')
  const sortedBy = sort.replace(/^-/, '') as Sortable
  const allSelected = books.length > 0 && books.every((book) => selected.has(book.id))
  const actions = props.onEdit !== undefined || props.onDelete !== undefined || props.onHistory !== undefined

  function toggle(ids: number[], on: boolean) {
    const next = new Set(selected)
    for (const id of ids) {
      if (on) next.add(id)
      else next.delete(id)
    }
    onSelect(next)
  }

  const select: Column<Book> = {
    header: strings.books.selectAll,
    class: 'select',
    unlabelled: true,
    head: <input type="checkbox" aria-label={strings.books.selectAll} checked={allSelected} onChange={(event) => toggle(books.map((book) => book.id), event.currentTarget.checked)} />,
    cell: (book) => (
      <input type="checkbox" aria-label={strings.books.select(visibleControls(book.title))} checked={selected.has(book.id)} onChange={(event) => toggle([book.id], event.currentTarget.checked)} />
    )
  }
  const sortable = SORTABLE.map((column): Column<Book> => {
    const active = sortedBy === column
    const label = strings.books.columns[column]
    return {
      header: label,
      class: `column-${column}`,
      sort: active ? (descending ? 'descending' : 'ascending') : undefined,
      head: (
        <button type="button" class="sort" onClick={() => props.onSort(active && !descending ? `-${column}` : column)} aria-label={strings.books.sortBy(label)}>
          {label}
          <span aria-hidden="true" class="sort-mark">
            {active ? (descending ? '▼' : '▲') : '↕'}
          </span>
        </button>
      ),
      cell: (book) => {
        if (column === 'id' || column === 'year') return book[column]
        const text = <SafeText text={book[column]} render={(part) => <Highlighted text={part} q={q} />} />
        if (column === 'author' || props.changedElsewhere !== book.id) return text
        return (
          <>
            {text}
            <span class="badge"> {strings.books.changedElsewhere}</span>
          </>
        )
      }
    }
  })

  return (
    <DataTable
      caption={strings.books.caption}
      // The view says "Loading…", a failure and an empty list itself (BooksView).
      load={{ data: books, error: undefined, reload: () => undefined }}
      loadFailed=""
      empty=""
      class="books"
      busy={props.busy}
      columns={selectable ? [select, ...sortable] : sortable}
      rowKey={(book) => book.id}
      rowAttributes={(book) => {
        const classes = [props.highlighted.has(book.id) ? 'highlight' : '', props.changedElsewhere === book.id ? 'changed' : '', selected.has(book.id) ? 'selected' : '']
        return { class: classes.filter(Boolean).join(' ') || undefined, 'data-id': String(book.id) }
      }}
      actions={actions ? (book) => <BookActions book={book} {...props} /> : undefined}
    />
  )
}
