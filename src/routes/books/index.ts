import type { FastifyInstance } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import { guardEveryRoute, type AuthHook } from '../../http/pipeline/auth-hook.js'
import { SEND_DEADLINE_OPT_OUT } from '../../http/pipeline/send-deadline.js'
import type { BookStore } from '../../storage/contracts/book-store.js'
import { changeFeedHandler, type ChangeFeedRouteOptions } from './changes.js'
import { bookHandlers } from './handlers.js'
import { historyHandlers, historyRouteSchemas } from './history.js'
import { bookRouteSchemas, createdBookLinks } from './schemas.js'

/** Options of the {@link booksRoutes} plugin. */
export interface BooksOptions {
  books: BookStore
  /** The `onRequest` hook that authenticates; undefined when `AUTH_ENABLED=false`. */
  authenticate?: AuthHook
  /** What GET /books/changes needs: the change feed, the token lease, the buffer bound (./changes.ts). */
  changes: ChangeFeedRouteOptions
}

/**
 * The five book operations (docs/contract.md "Operations"): POST /book, GET /books, GET /book/{id},
 * PUT /book/{id}, DELETE /book/{id}; handlers in ./handlers.ts, schemas in ./schemas.ts. A book's
 * history and its restore, GET /book/{id}/history and POST /book/{id}/restore (./history.ts). And the
 * change feed, GET /books/changes (./changes.ts), behind the same token check as GET /books.
 *
 * Bodies are validated by Fastify against the book schemas, but the result is only attached
 * (`attachValidation`) and reported by the handler, so the order of checks is the contract's:
 * authentication (onRequest), then the id and existence (404), then `If-Match` (412), then the
 * body (400).
 */
export async function booksRoutes(app: FastifyInstance, options: BooksOptions): Promise<void> {
  const { books, authenticate } = options
  const api = app.withTypeProvider<TypeBoxTypeProvider>()
  if (authenticate) guardEveryRoute(api, authenticate)
  const schemas = bookRouteSchemas()
  const handlers = bookHandlers(books)

  api.post('/book', { attachValidation: true, links: { 201: createdBookLinks }, schema: schemas.create }, handlers.createBook)
  api.get('/books', { schema: schemas.list }, handlers.listBooks)
  // A stream of events that handles its own slow readers: out of the send deadline.
  api.get('/books/changes', { config: SEND_DEADLINE_OPT_OUT, schema: schemas.changes }, changeFeedHandler(options.changes))
  api.get('/book/:id', { schema: schemas.read }, handlers.getBook)
  api.put('/book/:id', { attachValidation: true, schema: schemas.update }, handlers.updateBook)
  api.delete('/book/:id', { schema: schemas.delete }, handlers.deleteBook)
  // A book's history and its restore (./history.ts, README "History and restore").
  const history = historyHandlers(books)
  const historySchemas = historyRouteSchemas()
  api.get('/book/:id/history', { schema: historySchemas.history }, history.bookHistory)
  api.post('/book/:id/restore', { attachValidation: true, schema: historySchemas.restore }, history.restoreBook)
}
