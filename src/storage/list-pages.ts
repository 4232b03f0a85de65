import type { Book } from '../book/schema.js'
import { LIST_PAGE_SIZE } from './book-store.js'

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
