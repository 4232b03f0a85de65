import type { Search } from './search.js'

/**
 * A query of the book list (docs/api.md "Large collections and concurrent edits"): the filters, the
 * order and the position a page starts after, as `GET /books` parses them and the stores run them.
 */

/**
 * Filters of a list and its count; absent ones do not filter. `title` and `author` are substrings
 * as the client gave them, matched ignoring case: the storage folds them (`foldText`,
 * src/book/fold.ts) like the stored columns, and matches them literally (`%` and `_` are not
 * wildcards); the year bounds are inclusive.
 */
export interface BookFilter {
  /**
   * The search `q` (docs/contract.md "Search"), parsed (`parseSearch`, src/book/search.ts). With it and
   * without `sort`, the list is in relevance order, and `after` holds a rank and an id.
   */
  search?: Search
  title?: string
  author?: string
  year?: number
  yearMin?: number
  yearMax?: number
}

/**
 * Whether `filter` has a `title` or `author` substring: a `LIKE '%…%'` that no SQLite index serves,
 * so a rare one reads every book to fill a page. Such a list is a heavy read (routes/books/index.ts)
 * and, on SQLite, runs on the reader thread (storage/sqlite/sqlite-database.ts); docs/operations.md
 * "Bounded reads". Takes the parsed filter or the raw query string's values alike.
 */
export function hasSubstringFilter(filter: Pick<BookFilter, 'title' | 'author'>): boolean {
  return filter.title !== undefined || filter.author !== undefined
}

/** The fields a list can be ordered by; `title` and `author` order by their folded form. */
export type SortField = 'id' | 'title' | 'author' | 'year'

/**
 * One position in a sorted list: the sort key of a book (its id, folded title, folded author or
 * year) and its id. A page "after" it starts with the first book past it in the list's order.
 */
export interface ListPosition {
  key: string | number
  id: number
}

/** A query of the list: filters, order (ties always broken by id), start and size. */
export interface BookQuery extends BookFilter {
  /** Default `id`, or relevance when `search` is set. */
  sort?: SortField
  /** Descending instead of ascending, for the sort key and the id tie-break alike. */
  descending?: boolean
  /** Only books strictly after this position in the order. */
  after?: ListPosition
  /** At most this many books. */
  limit?: number
}
