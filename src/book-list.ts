import { Readable } from 'node:stream'
import { Messages } from './envelope.js'
import type { Book } from './schemas/book.js'

/** The content type of every response (decisions: "Wire contract"). */
export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8'

/** Characters gathered before a piece of the list is handed to the socket (about 64 KiB). */
const CHUNK_CHARS = 64 * 1024

const HEAD = JSON.stringify({ status: 200, message: Messages.listed }).slice(0, -1) + ',"data":['
const TAIL = ']}'

/**
 * One book as JSON, exactly as the response schema serializes it: the four fields of the Book
 * schema in its order, nothing else (a store row with more columns never leaks them).
 */
export function bookJson(book: Book): string {
  return `{"id":${book.id},"title":${JSON.stringify(book.title)},"author":${JSON.stringify(book.author)},"year":${book.year}}`
}

/** The rest of the list after `start` (text already made), in pieces of about {@link CHUNK_CHARS}. */
async function* remainder(start: string, books: AsyncIterator<Book>): AsyncGenerator<string> {
  let text = start
  for (;;) {
    const next = await books.next()
    if (next.done) {
      yield text + TAIL
      return
    }
    text += ',' + bookJson(next.value)
    if (text.length >= CHUNK_CHARS) {
      yield text
      text = ''
    }
  }
}

/**
 * The body of GET /books (spec: "List books"): `{"status":200,"message":"Books retrieved
 * successfully","data":[…every book, id ascending…]}`, byte for byte what serializing the whole
 * envelope would give, but never held in memory at once: a list that fits in one piece (about
 * 64 KiB) is returned as a string; a longer one as a stream that reads the store's pages only as
 * fast as the client takes them, so memory stays flat whatever the number of books.
 *
 * The first page is read before this resolves, so a storage failure there still becomes an
 * error response (503); a failure later, once the 200 has started, aborts the connection.
 *
 * @param books the store's `list()`.
 */
export async function listBody(books: AsyncIterable<Book>): Promise<string | Readable> {
  const iterator = books[Symbol.asyncIterator]()
  let text = HEAD
  let first = true
  for (;;) {
    const next = await iterator.next()
    if (next.done) return text + TAIL
    text += (first ? '' : ',') + bookJson(next.value)
    first = false
    if (text.length >= CHUNK_CHARS) break
  }
  return Readable.from(remainder(text, iterator), { objectMode: false })
}
