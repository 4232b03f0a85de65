import type { Book, BookClient, BookInput, BookPage, BookPatch, HistoryEntry, TaggedBook } from '../../../src/client/index.js'

export type { Book, BookInput, BookPage, BookPatch, HistoryEntry, TaggedBook }

/**
 * The list parameters of `GET /books` the page uses (docs/api.md "Large collections and concurrent
 * edits"), as text, exactly as they stand in the page's address.
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
  /** The cursor of the page (the `Link` header's `after`). */
  after?: string
}

/**
 * `GET /books` with `query` and `count=true`: one page, the next page's cursor (from `Link`) and
 * the number of books matching the filters (`X-Total-Count`).
 */
export async function listBooks(client: BookClient, { after, ...filters }: ListQuery): Promise<BookPage> {
  return client.listBookPage({ ...filters, ...(after === undefined || after === '' ? {} : { cursor: after }), count: true })
}

/**
 * Brings back a book that was just deleted (the page's Undo): restores the version its newest
 * history entry, the `deleted` one, follows (that entry's version - 1).
 *
 * @returns the book as stored again, or undefined when its newest entry is not a delete any more.
 */
export async function undoDelete(client: BookClient, id: number): Promise<Book | undefined> {
  const [newest] = (await client.history(id, { limit: 1 })).entries
  if (newest?.operation !== 'deleted') return undefined
  return client.restore(id, newest.version - 1)
}

/**
 * A source of `Idempotency-Key` values: the same random key for the same request body, so
 * sending the same book again after a lost answer stores it once (docs/contract.md). Random
 * bytes, not `crypto.randomUUID`, which plain-HTTP pages lack.
 */
export function idempotencyKeys(): (body: string) => string {
  const keys = new Map<string, string>()
  return (body) => {
    if (!keys.has(body)) keys.set(body, Array.from(crypto.getRandomValues(new Uint8Array(16)), (byte) => byte.toString(16).padStart(2, '0')).join(''))
    return keys.get(body)!
  }
}
