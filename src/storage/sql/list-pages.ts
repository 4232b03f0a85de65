import { positionOf } from '../../book/cursor.js'
import type { BookQuery } from '../../book/query.js'
import type { Book } from '../../book/schema.js'
import { LIST_PAGE_SIZE } from '../contracts/book-store.js'

/**
 * Every book, id ascending, as pages of up to {@link LIST_PAGE_SIZE} (the last may be empty):
 * each page is read by keyset (`WHERE id > <last id of the previous page> ORDER BY id LIMIT n`),
 * so memory stays flat and each page costs the same at any depth. Used by both engines' stores
 * (the contract's whole list) and transfers (export).
 *
 * @param readPage reads the books after `afterId`, by id, at most `size` of them.
 */
export async function* pagesById(readPage: (afterId: number, size: number) => Book[] | Promise<Book[]>): AsyncGenerator<Book[]> {
  for (let after = 0; ; ) {
    const page = await readPage(after, LIST_PAGE_SIZE)
    yield page
    if (page.length < LIST_PAGE_SIZE) return
    after = page[page.length - 1]!.id
  }
}

/**
 * The books of `query` (filters, order, start, at most `query.limit`), as pages read by keyset:
 * each read is one statement that returns its rows whole (`query` with `limit` and, after the
 * first page, `after` set to the position of the previous page's last book), so no read stays
 * open between pages and memory stays at about a page whatever the size of the answer. A query
 * whose `limit` is at most {@link LIST_PAGE_SIZE} + 1 (one page of `GET /books?limit=…`, with the
 * book that tells whether a next page exists) is one read; a longer or unlimited one is read in
 * pages of {@link LIST_PAGE_SIZE}. Used by both engines' stores for `BookStore.list(query)`.
 *
 * @param readPage runs one query (which always has a `limit`) and returns its books.
 */
export async function* pagesOf(query: BookQuery, readPage: (page: BookQuery) => Promise<Book[]>): AsyncGenerator<Book[]> {
  const field = query.sort ?? 'id'
  let remaining = query.limit ?? Number.POSITIVE_INFINITY
  for (let after = query.after; ; ) {
    const size = remaining <= LIST_PAGE_SIZE + 1 ? remaining : LIST_PAGE_SIZE
    const page = await readPage({ ...query, after, limit: size })
    yield page
    remaining -= page.length
    if (page.length < size || remaining === 0) return
    after = positionOf(field, page[page.length - 1]!)
  }
}
