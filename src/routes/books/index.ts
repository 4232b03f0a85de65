import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import { guardEveryRoute, type AuthHook } from '../../http/pipeline/auth-hook.js'
import type { HeavyReads } from '../../http/pipeline/heavy-reads.js'
import { SEND_DEADLINE_OPT_OUT } from '../../http/pipeline/send-deadline.js'
import type { BookStore } from '../../storage/contracts/book-store.js'
import { changeFeedHandler, type ChangeFeedRouteOptions } from './changes.js'
import { hasSubstringFilter } from '../../book/query.js'
import { bookHandlers } from './handlers.js'
import { historyHandlers, historyRouteSchemas } from './history.js'
import { bookRouteSchemas, createdBookLinks } from './schemas.js'
import { readRouting } from './read-routing.js'
import type { ReadReplicas } from '../../storage/contracts/read-replicas.js'

/** Options of the {@link booksRoutes} plugin. */
export interface BooksOptions {
  books: BookStore
  /** The `onRequest` hook that authenticates; undefined when `AUTH_ENABLED=false`. */
  authenticate?: AuthHook
  /** What GET /books/changes needs: the change feed, the token lease, the buffer bound (./changes.ts). */
  changes: ChangeFeedRouteOptions
  /** The process's fair share of heavy reads (src/http/pipeline/heavy-reads.ts). */
  heavyReads: HeavyReads
  /** The database's read replicas, when it has any (docs/several-instances.md "Read replicas"). */
  readReplicas?: ReadReplicas | undefined
}

/** The routes (Fastify's `routeOptions.url`) whose successful POST, PUT or DELETE writes a book. */
const BOOK_WRITE_ROUTES = new Set(['/book', '/book/:id', '/book/:id/restore'])

/**
 * Whether a request is a heavy read: a book's history, or a `GET /books` whose cost may grow with
 * the collection: one that searches (`q`), has no `limit` (every matching book, the whole
 * collection: an export) or filters by `title` or `author` (a substring no index serves on SQLite,
 * so a rare one reads every book to fill its page). Any other page costs one indexed page, and its
 * `count=true` one count of an index (on SQLite off the event loop: sqlite-database.ts), which the
 * web page asks with every page, so it takes no turn; a point read or a write is never heavy.
 */
function isHeavyRead(request: FastifyRequest): boolean {
  if (request.method !== 'GET') return false
  if (request.routeOptions.url === '/book/:id/history') return true
  if (request.routeOptions.url !== '/books') return false
  const query = request.query as { q?: string; limit?: string; title?: string; author?: string }
  return query.q !== undefined || query.limit === undefined || hasSubstringFilter(query)
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
  const routing = readRouting(books, options.readReplicas, (error) =>
    app.log.warn({ err: error }, 'a book write\'s commit position could not be read: its answer goes without Commit-Position')
  )
  const handlers = bookHandlers(books, routing)
  if (options.readReplicas !== undefined) {
    // Every answer of a book write carries the position it committed at, for reads to send back.
    api.addHook('onSend', async (request, reply, payload) => {
      if (request.method !== 'GET' && reply.statusCode < 300 && BOOK_WRITE_ROUTES.has(request.routeOptions.url ?? '')) await routing.afterWrite(request, reply)
      return payload
    })
  }

  api.post('/book', { attachValidation: true, links: { 201: createdBookLinks }, schema: schemas.create }, handlers.createBook)
  // Searches, exports and histories take a turn of the fair share (after the bearer hook and the
  // query's validation); point reads and writes never do.
  api.addHook('preHandler', options.heavyReads.admit(isHeavyRead))
  api.get('/books', { schema: schemas.list }, handlers.listBooks)
  // A stream of events that handles its own slow readers: out of the send deadline.
  api.get('/books/changes', { config: SEND_DEADLINE_OPT_OUT, schema: schemas.changes }, changeFeedHandler(options.changes))
  api.get('/book/:id', { schema: schemas.read }, handlers.getBook)
  api.put('/book/:id', { attachValidation: true, schema: schemas.update }, handlers.updateBook)
  api.delete('/book/:id', { schema: schemas.delete }, handlers.deleteBook)
  // A book's history and its restore (./history.ts, README "History and restore").
  const history = historyHandlers(books, routing)
  const historySchemas = historyRouteSchemas()
  api.get('/book/:id/history', { schema: historySchemas.history }, history.bookHistory)
  api.post('/book/:id/restore', { attachValidation: true, schema: historySchemas.restore }, history.restoreBook)
}
