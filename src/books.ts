import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import Type from 'typebox'
import type { AuthHook } from './auth.js'
import { JSON_CONTENT_TYPE, sharedList } from './book-list.js'
import { ListParameters, parseListParameters, readListPage } from './book-query.js'
import { HttpError, Messages } from './envelope.js'
import { bookETag, ifMatchHolds, ifNoneMatchMatches } from './etag.js'
import { Book, BookInput, BookParams, BookPatch } from './schemas/book.js'
import {
  bookNotFound,
  forbidden,
  invalidInput,
  notModified,
  preconditionFailed as preconditionFailedResponse,
  withHeaders,
  payloadTooLarge,
  serverErrors,
  successResponse,
  unauthorized
} from './schemas/responses.js'
import type { BookStore } from './storage/book-store.js'

/** Options of the {@link booksRoutes} plugin. */
export interface BooksOptions {
  store: BookStore
  /** The `onRequest` hook that authenticates; undefined when `AUTH_ENABLED=false`. */
  authenticate?: AuthHook
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

/** The `ETag` header as the API document shows it. */
const etagHeader = {
  etag: { type: 'string' as const, description: 'Strong entity tag of the book; changes whenever the book changes (issue 7).' }
}

/** Throws the 400 `Invalid input` when Fastify attached a body validation error. */
function assertValidBody(request: FastifyRequest): void {
  if (request.validationError) throw new HttpError(400, Messages.invalidInput)
}

const badBody = invalidInput(
  'the body is not a JSON object, or `title`/`author` is not a string of 1 to 500 characters (not only white space), or `year` is not an integer from -9999 to 9999.'
)

/**
 * OpenAPI links of a created book (issue 13): its `data.id` is the `{id}` of the operations on
 * it, so stateful API testers chain create → get / update / delete without configuration.
 */
const createdBookLinks = Object.fromEntries(
  (['getBook', 'updateBook', 'deleteBook'] as const).map((operationId) => [
    operationId,
    { operationId, parameters: { id: '$response.body#/data/id' }, description: `The id of the created book, as \`{id}\` of ${operationId}.` }
  ])
)

/** The tag that groups the book operations in the API document. */
const tags = ['Books']

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
  // In the API document: the bearer scheme and its 401 answers, only when the check is on.
  const security = authenticate ? [{ bearerAuth: [] }] : []
  const errors = { ...(authenticate ? { 401: unauthorized, 403: forbidden } : {}), ...serverErrors }

  api.post(
    '/book',
    {
      attachValidation: true,
      links: { 201: createdBookLinks },
      schema: {
        tags,
        operationId: 'createBook',
        summary: 'Create a book',
        description: 'Stores a new book and returns it with its assigned id. Unknown fields and `id` in the body are ignored.',
        security,
        body: BookInput,
        response: {
          201: successResponse(Book, Messages.created, 'the stored book, with its new id.', 201),
          400: badBody,
          413: payloadTooLarge,
          ...errors
        }
      }
    },
    async (request, reply) => {
      assertValidBody(request)
      const { title, author, year } = request.body
      const book = await store.create({ title, author, year })
      return reply.code(201).send({ status: 201, message: Messages.created, data: book })
    }
  )

  const listSchema = {
    tags,
    operationId: 'listBooks',
    summary: 'List books',
    description:
      'Without query parameters: every book, ordered by id ascending (the contract). The optional parameters page ' +
      '(`limit`, `after`, with a `Link: <…>; rel="next"` header while more books follow), filter (`title`, `author`: ' +
      'case-insensitive substring; `year`, `year_min`, `year_max`) and sort (`sort`, ties broken by id); `count=true` ' +
      'adds `X-Total-Count`. Unknown parameters are ignored.',
    security,
    querystring: ListParameters,
    response: {
      200: withHeaders(successResponse(Type.Array(Book), Messages.listed, 'the books asked for (all of them, by id, without parameters).'), {
        link: { type: 'string' as const, description: 'RFC 8288 `</books?…>; rel="next"`: only with `limit`, while more books follow.' },
        'x-total-count': { type: 'string' as const, description: 'How many books match the filters: only with `count=true`.' }
      }),
      400: invalidInput('a query parameter has a bad value (e.g. `limit` outside 1..1000, a non-integer `year`, an `after` that is not an id or a cursor of this sort).'),
      ...errors
    }
  }
  // Without paging parameters, the whole list: made by sharedList (the same bytes as the schema's
  // serialization), streamed when long, one read of the store shared by requests arriving together.
  const listBody = sharedList(() => store.list())
  api.get('/books', { schema: listSchema }, async (request, reply) => {
    // Issue 7: optional paging, filters and sort. Without any of them, the contract's list.
    const listing = parseListParameters(request.query)
    if (listing) {
      const page = await readListPage(store, listing)
      if (page.next !== undefined) reply.header('link', `<${page.next}>; rel="next"`)
      if (page.total !== undefined) reply.header('x-total-count', String(page.total))
      return { status: 200, message: Messages.listed, data: page.books }
    }
    const body = await listBody()
    // A string or a stream of the serialized envelope: sent as is, not serialized again.
    return reply.type(JSON_CONTENT_TYPE).send(body as never)
  })

  api.get(
    '/book/:id',
    {
      schema: {
        tags,
        operationId: 'getBook',
        summary: 'Get a book',
        description: 'Answers 304 with no body when `If-None-Match` names the current `ETag` (or is `*`).',
        security,
        params: BookParams,
        response: {
          200: withHeaders(successResponse(Book, Messages.retrieved, 'the book with this id.'), etagHeader),
          304: notModified,
          404: bookNotFound,
          ...errors
        }
      }
    },
    async (request, reply) => {
      const id = parseBookId(request.params.id)
      const book = id === undefined ? undefined : await store.get(id)
      if (!book) throw notFound()
      const etag = bookETag(book)
      reply.header('etag', etag)
      const ifNoneMatch = request.headers['if-none-match']
      if (ifNoneMatch !== undefined && ifNoneMatchMatches(ifNoneMatch, etag)) {
        return (reply as FastifyReply).code(304).send() // no body (RFC 9110 §15.4.5)
      }
      return { status: 200, message: Messages.retrieved, data: book }
    }
  )

  api.put(
    '/book/:id',
    {
      attachValidation: true,
      schema: {
        tags,
        operationId: 'updateBook',
        summary: 'Update a book',
        description:
          'Applies the fields present in the body on top of the stored book; absent fields keep their value, `{}` changes nothing. ' +
          'With `If-Match`, only while the book still has that `ETag` (`*`: any), checked and written atomically. ' +
          'Checked in this order: token (401), existence (404), `If-Match` (412), body (400).',
        security,
        params: BookParams,
        body: BookPatch,
        response: {
          200: withHeaders(successResponse(Book, Messages.updated, 'the book as stored now.'), etagHeader),
          400: badBody,
          404: bookNotFound,
          412: preconditionFailedResponse,
          413: payloadTooLarge,
          ...errors
        }
      }
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
    {
      schema: {
        tags,
        operationId: 'deleteBook',
        summary: 'Delete a book',
        description:
          'Removes the book; its id is never reused. A second delete answers 404. With `If-Match`, only while the ' +
          'book still has that `ETag` (`*`: any), checked and deleted atomically; order: token, 404, 412.',
        security,
        params: BookParams,
        response: {
          200: successResponse(Type.Null(), Messages.deleted, `the book is removed; \`data\` is null.`),
          404: bookNotFound,
          412: preconditionFailedResponse,
          ...errors
        }
      }
    },
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
