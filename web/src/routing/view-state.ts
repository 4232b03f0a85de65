import type { ListQuery } from '../api/books.js'
import { yearBounds } from '../book/rules.js'

/** The page's views. */
export type View = 'books' | 'accounts' | 'transfer' | 'webhooks' | 'tokens'

/** Where the person is: the view and, for the books, the list's settings. */
export interface Route {
  view: View
  books: ListQuery
}

/** Page sizes offered; the first page of a list shows {@link DEFAULT_PAGE_SIZE} books. */
export const PAGE_SIZES = ['10', '25', '50', '100'] as const
export const DEFAULT_PAGE_SIZE = '25'

/** The list settings kept in the URL, in the order written there. */
const LIST_KEYS = ['q', 'title', 'author', 'year_min', 'year_max', 'sort', 'limit', 'after'] as const
/** The settings remembered between visits (not the position in the list). */
const REMEMBERED_KEYS = ['q', 'title', 'author', 'year_min', 'year_max', 'sort', 'limit'] as const
const REMEMBERED_KEY = 'book-service.books-view'
const VIEWS: readonly View[] = ['books', 'accounts', 'transfer', 'webhooks', 'tokens']

/** Whether `text` is a year the API's list filters accept. */
function isYear(text: string): boolean {
  if (!/^-?[0-9]{1,4}$/.test(text)) return false
  const { minimum, maximum } = yearBounds()
  return Number(text) >= minimum && Number(text) <= maximum
}

/**
 * Keeps only list settings the API accepts (a hand-edited or stale link must not turn into a
 * 400): known sort, offered page size, years in range, text filters of at most 500 characters.
 */
export function cleanQuery(raw: Record<string, string | undefined>): ListQuery {
  const query: ListQuery = {}
  // A search of at most 200 characters once trimmed (docs/contract.md "Search"); white space is no search.
  if (raw.q && raw.q.trim() !== '' && [...raw.q.trim()].length <= 200) query.q = raw.q
  for (const key of ['title', 'author'] as const) {
    const value = raw[key]
    if (value && [...value].length <= 500) query[key] = value
  }
  for (const key of ['year_min', 'year_max'] as const) {
    const value = raw[key]?.trim()
    if (value && isYear(value)) query[key] = value
  }
  // Without a search, id is the default order; with one, the default is relevance and id an order of its own.
  if (raw.sort && /^-?(id|title|author|year)$/.test(raw.sort) && (raw.sort !== 'id' || query.q)) query.sort = raw.sort
  if (raw.limit && (PAGE_SIZES as readonly string[]).includes(raw.limit) && raw.limit !== DEFAULT_PAGE_SIZE) query.limit = raw.limit
  if (raw.after && raw.after.length <= 4096) query.after = raw.after
  return query
}

/** The route a location hash names (`#/books?sort=title`, `#/accounts`, …); anything else is the books. */
export function parseHash(hash: string): Route {
  const [path = '', search = ''] = hash.replace(/^#\/?/, '').split('?')
  const view = VIEWS.find((name) => name === path) ?? 'books'
  const parameters = new URLSearchParams(search)
  const raw: Record<string, string> = {}
  for (const key of LIST_KEYS) {
    const value = parameters.get(key)
    if (value !== null) raw[key] = value
  }
  return { view, books: view === 'books' ? cleanQuery(raw) : {} }
}

/** The hash of `route`: what a link to this view holds. */
export function hashOf(route: Route): string {
  if (route.view !== 'books') return `#/${route.view}`
  const parameters = new URLSearchParams()
  for (const key of LIST_KEYS) {
    const value = route.books[key]
    if (value !== undefined && value !== '') parameters.set(key, value)
  }
  const search = parameters.toString()
  return search ? `#/books?${search}` : '#/books'
}

/** The list settings as the API takes them: the page size filled in. */
export function apiQuery(query: ListQuery): ListQuery {
  return { ...query, limit: query.limit ?? DEFAULT_PAGE_SIZE }
}

/** Remembers the list settings of `query` (not its position) for the next visit. */
export function rememberQuery(query: ListQuery): void {
  const kept: Record<string, string> = {}
  for (const key of REMEMBERED_KEYS) if (query[key] !== undefined) kept[key] = query[key]!
  try {
    localStorage.setItem(REMEMBERED_KEY, JSON.stringify(kept))
  } catch {
    // Storage full or refused (private mode): the settings are only not remembered.
  }
}

/** The list settings remembered from the last visit, cleaned like any URL's. */
export function rememberedQuery(): ListQuery {
  try {
    const value: unknown = JSON.parse(localStorage.getItem(REMEMBERED_KEY) ?? '{}')
    return typeof value === 'object' && value !== null ? cleanQuery(value as Record<string, string>) : {}
  } catch {
    return {}
  }
}
