import { PassThrough, type Readable } from 'node:stream'
import { setImmediate as nextTurn } from 'node:timers/promises'
import { envelopeHead } from '../../http/envelope.js'
import { Messages } from '../../http/messages.js'
import type { Book } from '../../book/schema.js'

/** Characters gathered before a piece of the list is handed to the sockets (about 64 KiB). */
const PIECE_CHARS = 64 * 1024

const TAIL = ']}'

/** How a streamed envelope's `data` array is written: the text before its first item, and each item as JSON. */
interface ArrayText<T> {
  head: string
  json: (item: T) => string
}

/** The text of GET /books' answers: the envelope of `Books retrieved successfully`, each book by {@link bookJson}. */
const BOOKS_TEXT: ArrayText<Book> = { head: envelopeHead(200, Messages.listed) + '[', json: (book) => bookJson(book) }

/**
 * One book as JSON, exactly as the response schema serializes it: the four fields of the Book
 * schema in its order, nothing else (a store row with more columns never leaks them).
 */
export function bookJson(book: Book): string {
  return `{"id":${book.id},"title":${JSON.stringify(book.title)},"author":${JSON.stringify(book.author)},"year":${book.year}}`
}

/** The body of GET /books for one request: the whole text (as a string or bytes), or a stream of it. */
export type ListBody = string | Buffer | Readable

/** Largest whole-list body kept for reuse, in bytes (8 MiB: about 110,000 short books). */
export const MAX_KEPT_LIST_BYTES = 8 * 1024 * 1024

/** A whole-list body read at a store's change mark, reusable while the mark stays the same. */
interface KeptList {
  mark: string
  body: Buffer
}

interface Waiter {
  resolve: (body: ListBody) => void
  reject: (error: unknown) => void
}

/** Resolves when `stream` can take more, or is closed (its client went away). */
function writable(stream: PassThrough): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      stream.off('drain', done)
      stream.off('close', done)
      resolve()
    }
    stream.on('drain', done)
    stream.on('close', done)
  })
}

/**
 * Reads the list once and answers every waiter of the batch with it. A list that fits in one
 * piece is answered as a string; a longer one as one stream per waiter, fed piece by piece as
 * fast as the slowest of them takes it, so only about one page is in memory whatever the size.
 */
async function readForBatch<T>(items: AsyncIterable<T>, waiters: Waiter[], keep: ((body: Buffer) => void) | undefined, format: ArrayText<T>): Promise<void> {
  const iterator = items[Symbol.asyncIterator]()
  let text = format.head
  let first = true
  try {
    for (;;) {
      const next = await iterator.next()
      if (next.done) {
        const body = Buffer.from(text + TAIL)
        keep?.(body)
        for (const waiter of waiters) waiter.resolve(body)
        return
      }
      text += (first ? '' : ',') + format.json(next.value)
      first = false
      if (text.length >= PIECE_CHARS) break
    }
  } catch (error) {
    // Nothing sent yet: every request of the batch gets the error response (e.g. 503).
    for (const waiter of waiters) waiter.reject(error)
    return
  }

  const streams = waiters.map(() => new PassThrough({ highWaterMark: 256 * 1024 }))
  waiters.forEach((waiter, index) => waiter.resolve(streams[index]!))
  // The pieces sent so far, while the whole body may still be small enough to keep (and may be kept).
  let pieces: Buffer[] | undefined = keep === undefined ? undefined : []
  let piecesBytes = 0
  // Hands the text gathered so far to the streams as bytes and empties it, then resolves (with
  // whether any stream is still open) when they can take more. Neither this function nor the loop
  // below keeps the text across that wait: while an answer waits for its socket it holds bytes only.
  const flush = (): Promise<boolean> => {
    const chunk = Buffer.from(text)
    text = ''
    if (pieces !== undefined) {
      piecesBytes += chunk.length
      if (piecesBytes <= MAX_KEPT_LIST_BYTES) pieces.push(chunk)
      else pieces = undefined
    }
    const open = streams.filter((stream) => !stream.destroyed)
    const full = open.filter((stream) => !stream.write(chunk))
    // Readers that keep up never make a write wait (a local socket takes megabytes at once), and
    // the store's pages resolve as microtasks: without a turn of the event loop per piece, a long
    // list would be made whole before any other request (or connection) is served.
    return (full.length > 0 ? Promise.all(full.map(writable)) : nextTurn()).then(() => open.length > 0)
  }
  // Appends the next item's JSON to the text; false after the last item.
  const append = async (): Promise<boolean> => {
    const next = await iterator.next()
    if (next.done) return false
    text += ',' + format.json(next.value)
    return true
  }
  try {
    if (!(await flush())) return void (await iterator.return?.())
    while (await append()) {
      if (text.length >= PIECE_CHARS && !(await flush())) return void (await iterator.return?.())
    }
    text += TAIL
    await flush()
    for (const stream of streams) stream.end()
    if (pieces !== undefined) keep?.(Buffer.concat(pieces, piecesBytes))
  } catch (error) {
    // The 200 has started: all that can be done is to abort the responses (the log has it).
    for (const stream of streams) stream.destroy(error as Error)
  }
}

/**
 * The body of one list answer made from `books` (a filtered or sorted list without `limit`,
 * docs/api.md "Large collections and concurrent edits"): the same envelope text as the whole list's,
 * answered as one string when it fits in one piece (~64 KiB), else streamed piece by piece at
 * the pace of its reader, so memory stays at about a page whatever the number of books. Nothing
 * is shared or kept: each request reads its own query.
 *
 * @returns the body; rejects (e.g. 503) when the first piece cannot be read.
 */
export function listBody(books: AsyncIterable<Book>): Promise<ListBody> {
  return streamedBody(books, BOOKS_TEXT)
}

/**
 * Reads the next page of an answer's items, in the answer's order: undefined after the last page
 * (a page may be empty).
 *
 * @throws what the store throws; before the first page is read that becomes the error response (404, 503).
 */
export type PageReader<T> = () => Promise<readonly T[] | undefined>

/**
 * The body of one answer whose `data` is every item `readPage` gives (the envelope with
 * `message`), made as {@link listBody} makes a list's: one string when it fits in one piece, else
 * streamed at the pace of its reader (a book's whole history: docs/contract.md "History and
 * restore"). Each page is serialized as soon as it is read, so while the answer waits for its
 * socket it holds text and bytes only (at most one page's text and the stream's buffers), never
 * the page's items: with many readers at once, no decoded page outlives the turn that read it.
 *
 * @param json one item as JSON, exactly as the route's response schema serializes it.
 * @returns the body; rejects (e.g. 404, 503) when the first piece cannot be read.
 */
export function envelopeBody<T>(readPage: PageReader<T>, message: string, json: (item: T) => string): Promise<ListBody> {
  return streamedBody(pageTexts(readPage, json), { head: envelopeHead(200, message) + '[', json: (text) => text })
}

/**
 * Each non-empty page of `readPage` as the JSON of its items joined by commas. A plain iterator,
 * not a generator: a generator suspended at `yield` while the socket drains would keep its page
 * (or its text) alive; this one keeps nothing between calls.
 */
function pageTexts<T>(readPage: PageReader<T>, json: (item: T) => string): AsyncIterable<string> {
  const next = async (): Promise<IteratorResult<string, undefined>> => {
    for (;;) {
      const page = await readPage()
      if (page === undefined) return { done: true, value: undefined }
      if (page.length > 0) return { done: false, value: page.map(json).join(',') }
    }
  }
  return { [Symbol.asyncIterator]: () => ({ next }) }
}

function streamedBody<T>(items: AsyncIterable<T>, format: ArrayText<T>): Promise<ListBody> {
  return new Promise<ListBody>((resolve, reject) => {
    void readForBatch(items, [{ resolve, reject }], undefined, format)
  })
}

/** Longest a batch waits for the read in progress to finish before starting its own, in ms. */
const MAX_BATCH_WAIT_MS = 50

/**
 * Makes the body maker of GET /books (docs/contract.md "Operations"): `{"status":200,"message":"Books
 * retrieved successfully","data":[…every book, id ascending…]}`, byte for byte what serializing
 * the whole envelope would give, but never held in memory whole (streamed when over ~64 KiB).
 *
 * Concurrent GET /books requests share reads of the store. A request joins the batch that is
 * waiting to start; a batch starts on the next event-loop turn when no read is in progress, else
 * when the read in progress has handed out its last piece, or after 50 ms at most (so a slow
 * client never holds up the others for longer). Every read starts after all of its requests
 * arrived, so each still sees every write acknowledged before it came in; under load one read
 * serves dozens of requests.
 *
 * A whole body of at most {@link MAX_KEPT_LIST_BYTES} is kept with the store's change mark taken
 * before its read, when the mark had not moved by the end of it, and answers every later request
 * for as long as the mark stays the same: no book changed, so the bytes are what a new read would
 * give. A store without a mark (PostgreSQL) is read every time.
 *
 * The first piece is read before a request is answered, so a storage failure there still
 * becomes an error response (503); a failure after the 200 started aborts the connection.
 *
 * @param list the store's `list()`, called once per batch.
 * @param changeMark the store's `changeMark()` (see BookStore).
 * @returns `body()`, resolving with the body of one request.
 */
export function sharedList(list: () => AsyncIterable<Book>, changeMark: () => string | undefined): () => Promise<ListBody> {
  let batch: Waiter[] | undefined
  let reading = 0
  let timer: NodeJS.Timeout | undefined
  let kept: KeptList | undefined
  const start = () => {
    clearTimeout(timer)
    timer = undefined
    const waiters = batch
    batch = undefined
    if (!waiters) return
    reading++
    const finished = () => {
      reading--
      if (batch && reading === 0) start()
    }
    // Runs outside any request's promise chain (setImmediate, setTimeout): a store that fails here
    // (a file gone or corrupt) fails the batch's requests (500/503, logged with each), never the process.
    let books: AsyncIterable<Book>
    let mark: string | undefined
    try {
      mark = changeMark()
      books = list()
    } catch (error) {
      for (const waiter of waiters) waiter.reject(error)
      return finished()
    }
    // A store without a mark (PostgreSQL): nothing is gathered for keeping.
    const keep = mark === undefined ? undefined : (body: Buffer) => {
      try {
        if (changeMark() === mark) kept = { mark, body }
      } catch {
        // The body already went out whole; with the mark unreadable it is simply not kept.
      }
    }
    // readForBatch() settles every waiter itself and never rejects; both paths just count it done.
    readForBatch(books, waiters, keep, BOOKS_TEXT).then(finished, finished)
  }
  return () => {
    if (kept !== undefined) {
      if (kept.mark === changeMark()) return Promise.resolve(kept.body)
      kept = undefined
    }
    return new Promise<ListBody>((resolve, reject) => {
      if (batch === undefined) {
        batch = []
        if (reading === 0) setImmediate(start)
        else timer = setTimeout(start, MAX_BATCH_WAIT_MS)
      }
      batch.push({ resolve, reject })
    })
  }
}
