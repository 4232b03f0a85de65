import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import Type from 'typebox'
import type { AuthHook } from './auth.js'
import { JSON_CONTENT_TYPE, sharedList } from './book-list.js'
import { HttpError, Messages } from './envelope.js'
import { Book, BookInput, BookParams, BookPatch } from './schemas/book.js'
import {
  bookNotFound,
  invalidInput,
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

/** Throws the 400 `Invalid input` when Fastify attached a body validation error. */
function assertValidBody(request: FastifyRequest): void {
  if (request.validationError) throw new HttpError(400, Messages.invalidInput)
}

const badBody = invalidInput(
  'the body is not a JSON object, or `title`/`author` is not a string of 1 to 500 characters (not only white space), or `year` is not an integer from -9999 to 9999.'
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
  const errors = { ...(authenticate ? { 401: unauthorized } : {}), ...serverErrors }

  api.post(
    '/book',
    {
      attachValidation: true,
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
    summary: 'List all books',
    description: 'Every book, ordered by id ascending. No pagination, filtering or sorting parameters.',
    security,
    response: {
      200: successResponse(Type.Array(Book), Messages.listed, 'all books, by id ascending.'),
      ...errors
    }
  }
  // The schema still describes the response; the body is made by sharedList (the same bytes),
  // streamed when long, one read of the store shared by the requests that arrive together.
  const listBody = sharedList(() => store.list())
  app.get('/books', { schema: listSchema }, async (_request, reply) => {
    const body = await listBody()
    return reply.type(JSON_CONTENT_TYPE).send(body)
  })

  api.get(
    '/book/:id',
    {
      schema: {
        tags,
        operationId: 'getBook',
        summary: 'Get a book',
        security,
        params: BookParams,
        response: {
          200: successResponse(Book, Messages.retrieved, 'the book with this id.'),
          404: bookNotFound,
          ...errors
        }
      }
    },
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
      schema: {
        tags,
        operationId: 'updateBook',
        summary: 'Update a book',
        description:
          'Applies the fields present in the body on top of the stored book; absent fields keep their value, `{}` changes nothing. ' +
          'Checked in this order: token (401), existence (404), body (400).',
        security,
        params: BookParams,
        body: BookPatch,
        response: {
          200: successResponse(Book, Messages.updated, 'the book as stored now.'),
          400: badBody,
          404: bookNotFound,
          413: payloadTooLarge,
          ...errors
        }
      }
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
    {
      schema: {
        tags,
        operationId: 'deleteBook',
        summary: 'Delete a book',
        description: 'Removes the book; its id is never reused. A second delete answers 404.',
        security,
        params: BookParams,
        response: {
          200: successResponse(Type.Null(), Messages.deleted, `the book is removed; \`data\` is null.`),
          404: bookNotFound,
          ...errors
        }
      }
    },
    async (request) => {
      const id = parseBookId(request.params.id)
      if (id === undefined || !(await store.delete(id))) throw notFound()
      return { status: 200, message: Messages.deleted, data: null }
    }
  )
}
