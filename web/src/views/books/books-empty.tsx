import type { ListQuery } from '../../api/books.js'
import { strings } from '../../strings/index.js'
import { hasFilters } from './filter-values.js'

/** Props of {@link BooksEmpty}. */
export interface BooksEmptyProps {
  query: ListQuery
  /** Editors and admins: the empty list offers to add a book. */
  write: boolean
  onClearFilters: () => void
  onFirstPage: () => void
  onAdd: () => void
}

/**
 * What an empty page of the list says, and the way out: clear the filters that match nothing, go
 * back to the first page (a page emptied meanwhile), or add the first book.
 */
export function BooksEmpty({ query, write, onClearFilters, onFirstPage, onAdd }: BooksEmptyProps) {
  return (
    <div class="empty">
      {hasFilters(query) ? (
        <>
          <p>{strings.books.noMatch}</p>
          <button type="button" onClick={onClearFilters}>
            {strings.books.clearFilters}
          </button>
        </>
      ) : query.after !== undefined ? (
        <button type="button" onClick={onFirstPage}>
          {strings.books.firstPage}
        </button>
      ) : (
        <>
          <p>{write ? strings.books.empty : strings.books.emptyReader}</p>
          {write && (
            <button type="button" class="primary" onClick={onAdd}>
              {strings.books.add}
            </button>
          )}
        </>
      )}
    </div>
  )
}
