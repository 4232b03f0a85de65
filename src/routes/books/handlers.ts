import type { FastifyReply, FastifyRequest } from 'fastify'
import type { Static } from 'typebox'
import type { BookInput, BookParams, BookPatch } from '../../book/schema.js'
import { JSON_CONTENT_TYPE, envelopeOf } from '../../http/envelope.js'
import { assertValidBody } from '../../http/json-body.js'
import { Messages } from '../../http/messages.js'
import type { BookStore } from '../../storage/book-store.js'
import { bookETag, ifNoneMatchMatches } from './etag.js'
import { parseListParameters, readListPage, type ListParameters } from './list-query.js'
import { sharedList } from './list-stream.js'
import { bookNotFound, loadForWrite, parseBookId, written } from './load-for-write.js'

type Params = Static<typeof BookParams>
type CreateRequest = FastifyRequest<{ Body: BookInput }>
type ListRequest = FastifyRequest<{ Querystring: ListParameters }>
type ReadRequest = FastifyRequest<{ Params: Params }>
type UpdateRequest = FastifyRequest<{ Params: Params; Body: BookPatch }>
type DeleteRequest = FastifyRequest<{ Params: Params }>

/**
 * The handlers of the five book operations (spec: "Endpoints") on `store`, one named function
 * each. Authentication ran before them (`onRequest`); bodies were validated by Fastify but the
 * result only attached, so each handler reports it where the contract's order puts it.
 */
export function bookHandlers(store: BookStore) {
  // Without paging parameters, the whole list: made by sharedList (the same bytes as the schema's
  // serialization), streamed when long, one read of the store shared by requests arriving together,
  // kept while no book changes (when the store can tell).
  const wholeList = sharedList(() => store.list(), () => store.changeMark())

  return {
    /** POST /book: 400 `Invalid input`, else 201 `Book created successfully` with the stored book. */
    async createBook(request: CreateRequest, reply: FastifyReply) {
      assertValidBody(request)
      const { title, author, year } = request.body
      const book = await store.create({ title, author, year })
      return reply.code(201).send(envelopeOf(201, Messages.created, book))
    },

    /**
     * GET /books: without list parameters every book by id (the contract), streamed; with them
     * (paging, filters, sort: README "Large collections and concurrent edits") one page, its `Link` and `X-Total-Count` headers.
     */
    async listBooks(request: ListRequest, reply: FastifyReply) {
      const listing = parseListParameters(request.query)
      if (listing) {
        const page = await readListPage(store, listing)
        if (page.next !== undefined) reply.header('link', `<${page.next}>; rel="next"`)
        if (page.total !== undefined) reply.header('x-total-count', String(page.total))
        return envelopeOf(200, Messages.listed, page.books)
      }
      const body = await wholeList()
      // Bytes or a stream of the serialized envelope: sent as is, not serialized again.
      return reply.type(JSON_CONTENT_TYPE).send(body as never)
    },

    /** GET /book/{id}: 404, 304 when `If-None-Match` names the current `ETag`, else 200 with the book. */
    async getBook(request: ReadRequest, reply: FastifyReply) {
      const id = parseBookId(request.params.id)
      const book = id === undefined ? undefined : await store.get(id)
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
    async updateBook(request: UpdateRequest, reply: FastifyReply) {
      const target = await loadForWrite(store, request, true)
      const { title, author, year } = request.body
      const patch = { title, author, year }
      // With a tag, the version check and the write are one atomic statement.
      const book = written(
        target.version === undefined
          ? await store.update(target.id, patch)
          : await store.updateIfVersion(target.id, target.version, patch)
      )
      reply.header('etag', bookETag(book))
      return envelopeOf(200, Messages.updated, book)
    },

    /** DELETE /book/{id}: 404, 412 (in that order, {@link loadForWrite}), else 200 `Book deleted successfully`. */
    async deleteBook(request: DeleteRequest) {
      const target = await loadForWrite(store, request, false)
      written(
        target.version === undefined
          ? await store.delete(target.id)
          : await store.deleteIfVersion(target.id, target.version)
      )
      return envelopeOf(200, Messages.deleted, null)
    }
  }
}
