import type { Book, BookInput, BookPatch, HistoryEntry } from '../../../src/client/index.js'
import { call, type Caller } from './request.js'

export type { Book, BookInput, BookPatch, HistoryEntry }

/**
 * The list parameters of `GET /books` the page uses (docs/api.md "Large collections and concurrent
 * edits"), as text, exactly as they go in the query string.
 */
export interface ListQuery {
  /** The search (docs/search.md "Search"): title and author, ignoring case and diacritics. */
  q?: string
  title?: string
  author?: string
  year_min?: string
  year_max?: string
  sort?: string
  limit?: string
  after?: string
}

/** One page of the list: its books, the `after` of the next page (when more follow) and the total matching. */
export interface BookPage {
  books: Book[]
  next?: string
  total?: number
}

/** The `after` parameter of the `Link: <…>; rel="next"` header, when there is one. */
export function nextAfter(link: string | null): string | undefined {
  const target = link?.match(/<([^>]*)>\s*;\s*rel="?next"?/)?.[1]
  if (target === undefined) return undefined
  return new URLSearchParams(target.split('?')[1] ?? '').get('after') ?? undefined
}

/**
 * `GET /books` with `query` and `count=true`: one page, the next page's position (from `Link`)
 * and the number of books matching the filters (`X-Total-Count`).
 */
export async function listBooks(caller: Caller, query: ListQuery): Promise<BookPage> {
  const parameters = new URLSearchParams()
  for (const [name, value] of Object.entries(query)) if (value !== undefined && value !== '') parameters.set(name, value)
  parameters.set('count', 'true')
  const answer = await call<Book[]>(caller, 'GET', `/books?${parameters.toString()}`)
  const total = answer.headers.get('x-total-count')
  return { books: answer.data, next: nextAfter(answer.headers.get('link')), total: total === null ? undefined : Number(total) }
}

/** `GET /books` without parameters: every book, by id (the contract's list; an export reads this). */
export async function listAllBooks(caller: Caller): Promise<Book[]> {
  return (await call<Book[]>(caller, 'GET', '/books')).data
}

/** A book with the `ETag` of its stored version (docs/api.md "Large collections and concurrent edits"). */
export interface TaggedBook {
  book: Book
  etag: string
}

const bookPath = (id: number) => `/book/${id}`

/** `GET /book/{id}`: the book and its version's `ETag`. */
export async function getBook(caller: Caller, id: number): Promise<TaggedBook> {
  const answer = await call<Book>(caller, 'GET', bookPath(id))
  return { book: answer.data, etag: answer.headers.get('etag') ?? '*' }
}

/** `POST /book`, with an `Idempotency-Key` when given (a retry with it creates nothing more). */
export async function createBook(caller: Caller, input: BookInput, idempotencyKey?: string): Promise<Book> {
  const headers = idempotencyKey === undefined ? undefined : { 'idempotency-key': idempotencyKey }
  return (await call<Book>(caller, 'POST', '/book', { body: input, headers })).data
}

/**
 * `POST /book` with `idempotencyKey`: the book, and whether the answer is the key's replayed first
 * answer (`Idempotent-Replayed: true`: stored before, nothing stored now; docs/api.md "Retries and
 * Idempotency-Key").
 */
export async function createBookOnce(caller: Caller, input: BookInput, idempotencyKey: string): Promise<{ book: Book; replayed: boolean }> {
  const answer = await call<Book>(caller, 'POST', '/book', { body: input, headers: { 'idempotency-key': idempotencyKey } })
  return { book: answer.data, replayed: answer.headers.get('idempotent-replayed') === 'true' }
}

/** `PUT /book/{id}` with `If-Match: etag`: 412 `Precondition failed` when someone changed it meanwhile. */
export async function updateBook(caller: Caller, id: number, patch: BookPatch, etag: string): Promise<TaggedBook> {
  const answer = await call<Book>(caller, 'PUT', bookPath(id), { body: patch, headers: { 'if-match': etag } })
  return { book: answer.data, etag: answer.headers.get('etag') ?? '*' }
}

/** `DELETE /book/{id}`. */
export async function deleteBook(caller: Caller, id: number): Promise<void> {
  await call<null>(caller, 'DELETE', bookPath(id))
}

/** One page of a history, newest first, and the `after` of the next page when more follow. */
export interface HistoryPage {
  entries: HistoryEntry[]
  next?: string
}

/** `GET /book/{id}/history?limit=…&after=…`: one page of the book's history, newest first. */
export async function bookHistory(caller: Caller, id: number, limit: number, after?: string): Promise<HistoryPage> {
  const parameters = new URLSearchParams({ limit: String(limit) })
  if (after !== undefined) parameters.set('after', after)
  const answer = await call<HistoryEntry[]>(caller, 'GET', `${bookPath(id)}/history?${parameters.toString()}`)
  return { entries: answer.data, next: nextAfter(answer.headers.get('link')) }
}

/**
 * `POST /book/{id}/restore` of `version`: the book as it was then, as a new version (a deleted
 * book comes back under its id). With `etag`, only while the book still has it (412 otherwise).
 */
export async function restoreBook(caller: Caller, id: number, version: number, etag?: string): Promise<TaggedBook> {
  const headers = etag === undefined ? undefined : { 'if-match': etag }
  const answer = await call<Book>(caller, 'POST', `${bookPath(id)}/restore`, { body: { version }, headers })
  return { book: answer.data, etag: answer.headers.get('etag') ?? '*' }
}

/**
 * Brings back a book that was just deleted (the page's Undo): restores the version its newest
 * history entry, the `deleted` one, follows (that entry's version - 1).
 *
 * @returns the book as stored again, or undefined when its newest entry is not a delete any more.
 */
export async function undoDelete(caller: Caller, id: number): Promise<Book | undefined> {
  const [newest] = (await bookHistory(caller, id, 1)).entries
  if (newest?.operation !== 'deleted') return undefined
  return (await restoreBook(caller, id, newest.version - 1)).book
}
