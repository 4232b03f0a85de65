import type { FastifyReply, FastifyRequest } from 'fastify'
import type { Static } from 'typebox'
import { parseBookId } from '../../book/id.js'
import type { BookInput, BookParams, BookPatch } from '../../book/schema.js'
import { JSON_CONTENT_TYPE, envelopeOf } from '../../http/envelope.js'
import { assertValidBody } from '../../http/pipeline/json-body.js'
import { Messages } from '../../http/messages.js'
import type { BookStore } from '../../storage/contracts/book-store.js'
import type { BookReads } from '../../storage/contracts/read-replicas.js'
import { changeContextOf } from './change-context.js'
import { bookETag, ifNoneMatchMatches } from './etag.js'
import { idempotentCreate, REPLAYED_HEADER } from './idempotency.js'
import { parseListParameters, readListPage, type ListParameters } from './list-query.js'
import { listBody, sharedList, type ListBody } from './list-stream.js'
import { bookNotFound, loadForWrite, written } from './load-for-write.js'
import type { ReadRouting } from './read-routing.js'

type Params = Static<typeof BookParams>
type CreateBookRequest = FastifyRequest<{ Body: BookInput; Headers: { 'idempotency-key'?: string } }>
type ListBooksRequest = FastifyRequest<{ Querystring: ListParameters }>
type GetBookRequest = FastifyRequest<{ Params: Params }>
type UpdateBookRequest = FastifyRequest<{ Params: Params; Body: BookPatch }>
type DeleteBookRequest = FastifyRequest<{ Params: Params }>

/**
 * The handlers of the five book operations (docs/contract.md "Operations") on `books`, one named
 * function each; reads where `routing` sends each (the primary, or a read replica: ./read-routing.ts),
 * writes and the reads they decide on on `books`. Authentication ran before them (`onRequest`);
 * bodies were validated by Fastify but the result only attached, so each handler reports it where
 * the contract's order puts it.
 */
export function bookHandlers(books: BookStore, routing: ReadRouting) {
  // Without paging parameters, the whole list: made by sharedList (the same bytes as the schema's
  // serialization), streamed when long, one read of the store shared by requests arriving together
  // to the same server, kept while no book changes (when the store can tell).
  const wholeLists = new Map<BookReads, () => Promise<ListBody>>()
  const wholeList = (reads: BookReads) => {
    let shared = wholeLists.get(reads)
    if (shared === undefined) {
      shared = sharedList(() => reads.list(), () => books.changeMark())
      wholeLists.set(reads, shared)
    }
    return shared()
  }
  const createOnce = idempotentCreate(books)

  return {
    /**
     * POST /book: 400 `Invalid input` (the body, or an `Idempotency-Key` that is empty or too long),
     * else 201 `Book created successfully` with the stored book. With an `Idempotency-Key`: the
     * key's first answer again (marked `Idempotent-Replayed: true`), or 409, 422 (./idempotency.ts).
     */
    async createBook(request: CreateBookRequest, reply: FastifyReply) {
      assertValidBody(request)
      const { title, author, year } = request.body
      const key = request.headers['idempotency-key']
      const { status, book, replayed } =
        key === undefined ? { status: 201, book: await books.create({ title, author, year }, changeContextOf(request)), replayed: false } : await createOnce(request, key, { title, author, year })
      if (replayed) reply.header(REPLAYED_HEADER, 'true')
      return reply.code(status).send(envelopeOf(status, Messages.created, book))
    },

    /**
     * GET /books: without list parameters every book by id (the contract), streamed; with them
     * (paging, filters, sort: docs/api.md "Large collections and concurrent edits") one page, its `Link`
     * and `X-Total-Count` headers, or, without `limit`, every matching book, streamed like the whole list.
     */
    async listBooks(request: ListBooksRequest, reply: FastifyReply) {
      const listing = parseListParameters(request.query)
      const reads = await routing.readsFor(request)
      if (listing?.limit !== undefined) {
        const page = await readListPage(reads, listing)
        if (page.next !== undefined) reply.header('link', `<${page.next}>; rel="next"`)
        if (page.total !== undefined) reply.header('x-total-count', String(page.total))
        return envelopeOf(200, Messages.listed, page.books)
      }
      if (listing?.count) reply.header('x-total-count', String(await reads.count(listing.query)))
      const body = await (listing ? listBody(reads.list(listing.query)) : wholeList(reads))
      // Bytes or a stream of the serialized envelope: sent as is, not serialized again.
      return reply.type(JSON_CONTENT_TYPE).send(body as never)
    },

    /** GET /book/{id}: 404, 304 when `If-None-Match` names the current `ETag`, else 200 with the book. */
    async getBook(request: GetBookRequest, reply: FastifyReply) {
      const id = parseBookId(request.params.id)
      const book = id === undefined ? undefined : await (await routing.readsFor(request)).get(id)
      if (!book) throw bookNotFound()
      const etag = bookETag(book)
      reply.header('etag', etag)
      const ifNoneMatch = request.headers['if-none-match']
      if (ifNoneMatch !== undefined && ifNoneMatchMatches(ifNoneMatch, etag)) {
        return reply.code(304).send() // no body (RFC 9110 §15.4.5)
      }
      return envelopeOf(200, Messages.retrieved, book)
    },

    /** PUT /book/{id}: 404, 412, 400 (in that order, {@link loadForWrite}), else 200 with the book as stored now. */
    async updateBook(request: UpdateBookRequest, reply: FastifyReply) {
      const target = await loadForWrite(books, request, true)
      const { title, author, year } = request.body
      const patch = { title, author, year }
      // With a tag, the version check and the write are one atomic statement.
      const { book } = written(await books.update(target.id, patch, changeContextOf(request), target.version))
      reply.header('etag', bookETag(book))
      return envelopeOf(200, Messages.updated, book)
    },

    /** DELETE /book/{id}: 404, 412 (in that order, {@link loadForWrite}), else 200 `Book deleted successfully`. */
    async deleteBook(request: DeleteBookRequest) {
      const target = await loadForWrite(books, request, false)
      written(await books.delete(target.id, changeContextOf(request), target.version))
      return envelopeOf(200, Messages.deleted, null)
    }
  }
}
