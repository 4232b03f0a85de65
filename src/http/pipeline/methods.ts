import type { IncomingMessage } from 'node:http'
import { createRequire } from 'node:module'
import type { Duplex } from 'node:stream'
import type { Socket } from 'node:net'
import type { FastifyInstance } from 'fastify'

// node:http through require, not `import`: its ES module facade reads every export, and one of
// them loads undici (fetch) — ~45 ms of every start for nothing (Node 24).
const { METHODS, ServerResponse } = createRequire(import.meta.url)('node:http') as typeof import('node:http')

/**
 * Makes every method Node's HTTP parser accepts (`http.METHODS`: TRACE, PROPFIND, QUERY, CONNECT,
 * M-SEARCH, …) a method the router knows, so that on a known path each one the path does not serve
 * is answered 405 `Method not allowed` with `Allow` (docs/contract.md "Everything else") by the
 * routes of `methodNotAllowed` (src/http/errors/method-not-allowed.ts), not 404 or 400. The added
 * methods are bodyless: a body they carry is never read. Call it before any route is added.
 */
export function acceptEveryMethod(app: FastifyInstance): void {
  const known = new Set(app.supportedMethods)
  for (const method of METHODS) if (!known.has(method)) app.addHttpMethod(method)
  // Fastify knows QUERY (RFC 10008) as a method with a body, and refuses one without a
  // Content-Type with its own 400 before routing; no route serves QUERY, so it is 405 like the rest.
  app.addHttpMethod('QUERY', { hasBody: false, overrideExisting: true })
}

/**
 * Answers `CONNECT` requests like any other request: Node hands them to the `connect` event
 * instead of the router (and closes the connection when nobody listens), so this listener gives
 * the request a response on its socket and routes it. On a known path (`CONNECT /books`) that is
 * 405 with `Allow`; an authority target (`CONNECT host:443`) is no path the service has: 404
 * `Route not found`. No tunnel is ever opened: the connection is closed once the answer is sent, and
 * bytes sent after the request are ignored.
 */
export function answerConnect(app: FastifyInstance): void {
  app.server.on('connect', (request: IncomingMessage, socket: Duplex) => {
    const response = new ServerResponse(request)
    response.shouldKeepAlive = false
    response.assignSocket(socket as Socket)
    response.once('finish', () => {
      response.detachSocket(socket as Socket)
      socket.end()
    })
    socket.on('error', () => socket.destroy())
    app.routing(request, response)
  })
}
