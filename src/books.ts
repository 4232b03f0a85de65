import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import Type from 'typebox'
import type { AuthHook } from './auth.js'
import { JSON_CONTENT_TYPE, sharedList } from './book-list.js'
import { EmptyEnvelope, ErrorEnvelope, HttpError, Messages, envelope } from './envelope.js'
import { Book, BookInput, BookParams, BookPatch } from './schemas/book.js'
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

  // The schema still describes the response; the body is made by sharedList, streamed when long.
  const listBody = sharedList(() => store.list())
  app.get('/books', { schema: { response: { 200: envelope(Type.Array(Book)), ...errors } } }, async (_request, reply) => {
    const body = await listBody()
    return reply.type(JSON_CONTENT_TYPE).send(body)
  })

  api.get(
    '/book/:id',
    { schema: { params: BookParams, response: { 200: envelope(Book), ...errors } } },
    async (request) => {
      const id = parseBookId(request.params.id)
      const book = id === undefined ? undefined : await store.get(id)
      if (!book) throw notFound()
      return { status: 200, message: Messages.retrieved, data: book }
    }
  )

  api.put(
    '/book/:id',
    {
      attachValidation: true,
      schema: { params: BookParams, body: BookPatch, response: { 200: envelope(Book), ...errors } }
    },
    async (request) => {
      // Spec order: the existing record is loaded first (404), then the body is checked (400).
      const id = parseBookId(request.params.id)
      if (id === undefined || !(await store.get(id))) throw notFound()
      assertValidBody(request)
      const { title, author, year } = request.body
      const book = await store.update(id, { title, author, year })
      if (!book) throw notFound() // deleted between the load and the save
      return { status: 200, message: Messages.updated, data: book }
    }
  )

  api.delete(
    '/book/:id',
    { schema: { params: BookParams, response: { 200: EmptyEnvelope, ...errors } } },
    async (request) => {
      const id = parseBookId(request.params.id)
      if (id === undefined || !(await store.delete(id))) throw notFound()
      return { status: 200, message: Messages.deleted, data: null }
    }
  )
}
