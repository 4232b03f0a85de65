import type { FastifyInstance } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { AuthHook } from '../../auth/tokens.js'
import type { BookStore } from '../../storage/book-store.js'
import { bookHandlers } from './handlers.js'
import { bookRouteSchemas, createdBookLinks } from './schemas.js'

/** Options of the {@link booksRoutes} plugin. */
export interface BooksOptions {
  store: BookStore
  /** The `onRequest` hook that authenticates; undefined when `AUTH_ENABLED=false`. */
  authenticate?: AuthHook
}

/**
 * The five book operations (spec: "Endpoints"): POST /book, GET /books, GET /book/{id},
 * PUT /book/{id}, DELETE /book/{id}; handlers in ./handlers.ts, schemas in ./schemas.ts.
 *
 * Bodies are validated by Fastify against the book schemas, but the result is only attached
 * (`attachValidation`) and reported by the handler, so the order of checks is the contract's:
 * authentication (onRequest), then the id and existence (404), then `If-Match` (412), then the
 * body (400).
 */
export async function booksRoutes(app: FastifyInstance, options: BooksOptions): Promise<void> {
  const { store, authenticate } = options
  const api = app.withTypeProvider<TypeBoxTypeProvider>()
  if (authenticate) api.addHook('onRequest', authenticate)
  const schemas = bookRouteSchemas(authenticate !== undefined)
  const handlers = bookHandlers(store)

  api.post('/book', { attachValidation: true, links: { 201: createdBookLinks }, schema: schemas.create }, handlers.createBook)
  api.get('/books', { schema: schemas.list }, handlers.listBooks)
  api.get('/book/:id', { schema: schemas.read }, handlers.getBook)
  api.put('/book/:id', { attachValidation: true, schema: schemas.update }, handlers.updateBook)
  api.delete('/book/:id', { schema: schemas.delete }, handlers.deleteBook)
}
