import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import Type from 'typebox'
import { ListParameters, parseListParameters, readListPage } from './book-query.js'
import { EmptyEnvelope, ErrorEnvelope, HttpError, Messages, envelope } from './envelope.js'
import { bookETag, ifMatchHolds, ifNoneMatchMatches } from './etag.js'
import { Book, BookInput, BookParams, BookPatch } from './schemas/book.js'
import type { BookStore } from './storage/book-store.js'

/** Options of the {@link booksRoutes} plugin. */
export interface BooksOptions {
  store: BookStore
  /** The `onRequest` hook that authenticates; undefined when `AUTH_ENABLED=false`. */
  authenticate?: (request: FastifyRequest) => Promise<void>
}

/**
 * Parses the `{id}` path segment (decisions: "Ids"): decimal digits with a value in 1 .. 2^53-1.
 *
 * @returns the id, or undefined for anything else (`abc`, `-1`, `0`, `1.5`, `1e3`, too large).
 */
export function parseBookId(raw: string): number | undefined {
  if (!/^[0-9]{1,16}$/.test(raw)) return undefined
  const id = Number(raw)
  return id >= 1 && id <= Number.MAX_SAFE_INTEGER ? id : undefined
}

const notFound = () => new HttpError(404, Messages.bookNotFound)
const preconditionFailed = () => new HttpError(412, Messages.preconditionFailed)

/** The `If-Match` header of a request, or undefined when it has none. */
function ifMatchOf(request: FastifyRequest): string | undefined {
  const header = request.headers['if-match']
  return header === undefined ? undefined : String(header)
}

/** Throws the 400 `Invalid input` when Fastify attached a body validation error. */
function assertValidBody(request: FastifyRequest): void {
  if (request.validationError) throw new HttpError(400, Messages.invalidInput)
}

const errors = { '4xx': ErrorEnvelope, '5xx': ErrorEnvelope }

/**
 * The five book operations (spec: "Endpoints"): POST /book, GET /books, GET /book/{id},
 * PUT /book/{id}, DELETE /book/{id}.
 *
 * Bodies are validated by Fastify against the book schemas, but the result is only attached
 * (`attachValidation`) and reported by the handler, so the order of checks is the contract's:
 * authentication (onRequest), then the id and existence (404), then the body (400).
 */
export async function booksRoutes(app: FastifyInstance, options: BooksOptions): Promise<void> {
  const { store, authenticate } = options
  const api = app.withTypeProvider<TypeBoxTypeProvider>()
  if (authenticate) api.addHook('onRequest', authenticate)

  api.post(
    '/book',
    {
      attachValidation: true,
      schema: { body: BookInput, response: { 201: envelope(Book), ...errors } }
    },
    async (request, reply) => {
      assertValidBody(request)
      const { title, author, year } = request.body
      const book = await store.create({ title, author, year })
      return reply.code(201).send({ status: 201, message: Messages.created, data: book })
    }
  )

  api.get(
    '/books',
    { schema: { querystring: ListParameters, response: { 200: envelope(Type.Array(Book)), ...errors } } },
    async (request, reply) => {
      // Issue 7: optional paging, filters and sort. Without any of them, the contract's list.
      const listing = parseListParameters(request.query)
      if (listing) {
        const page = await readListPage(store, listing)
        if (page.next !== undefined) reply.header('link', `<${page.next}>; rel="next"`)
        if (page.total !== undefined) reply.header('x-total-count', String(page.total))
        return { status: 200, message: Messages.listed, data: page.books }
      }
      const books: Book[] = []
      for await (const book of store.list()) books.push(book)
      return { status: 200, message: Messages.listed, data: books }
    }
  )

  api.get(
    '/book/:id',
    { schema: { params: BookParams, response: { 200: envelope(Book), ...errors } } },
    async (request, reply) => {
      const id = parseBookId(request.params.id)
      const book = id === undefined ? undefined : await store.get(id)
      if (!book) throw notFound()
      const etag = bookETag(book)
      reply.header('etag', etag)
      const ifNoneMatch = request.headers['if-none-match']
      if (ifNoneMatch !== undefined && ifNoneMatchMatches(ifNoneMatch, etag)) return (reply as FastifyReply).code(304).send() // no body (RFC 9110 §15.4.5)
      return { status: 200, message: Messages.retrieved, data: book }
    }
  )

  api.put(
    '/book/:id',
    {
      attachValidation: true,
      schema: { params: BookParams, body: BookPatch, response: { 200: envelope(Book), ...errors } }
    },
    async (request, reply) => {
      // Spec order: the existing record is loaded first (404), then If-Match (412, issue 7: a
      // precondition is about the stored state), then the body is checked (400).
      const id = parseBookId(request.params.id)
      const current = id === undefined ? undefined : await store.get(id)
      if (id === undefined || !current) throw notFound()
      const ifMatch = ifMatchOf(request)
      if (ifMatch !== undefined && !ifMatchHolds(ifMatch, bookETag(current))) throw preconditionFailed()
      assertValidBody(request)
      const { title, author, year } = request.body
      const patch = { title, author, year }
      // With a tag, the version check and the write are one atomic statement.
      const outcome =
        ifMatch === undefined || ifMatch.trim() === '*'
          ? await store.update(id, patch)
          : await store.updateIfVersion(id, current.version, patch)
      if (outcome === undefined || outcome === 'missing') throw notFound() // deleted since the load
      if (outcome === 'stale') throw preconditionFailed() // changed since the load
      reply.header('etag', bookETag(outcome))
      return { status: 200, message: Messages.updated, data: outcome }
    }
  )

  api.delete(
    '/book/:id',
    { schema: { params: BookParams, response: { 200: EmptyEnvelope, ...errors } } },
    async (request) => {
      const id = parseBookId(request.params.id)
      if (id === undefined) throw notFound()
      const ifMatch = ifMatchOf(request)
      if (ifMatch === undefined || ifMatch.trim() === '*') {
        if (!(await store.delete(id))) throw notFound()
      } else {
        // Order: 404 (no such book), then 412 (stale tag); the check and the delete are one statement.
        const current = await store.get(id)
        if (!current) throw notFound()
        if (!ifMatchHolds(ifMatch, bookETag(current))) throw preconditionFailed()
        const outcome = await store.deleteIfVersion(id, current.version)
        if (outcome === 'missing') throw notFound()
        if (outcome === 'stale') throw preconditionFailed()
      }
      return { status: 200, message: Messages.deleted, data: null }
    }
  )
}
