import type { ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify'
import { JSON_CONTENT_TYPE, errorEnvelope } from './envelope.js'
import { HttpError } from './http-error.js'
import { Messages, defaultMessageFor } from './messages.js'
import { StorageUnavailableError } from '../storage/book-store.js'

/**
 * Renders every error as the envelope (decisions: "Everything else"): {@link HttpError}s as they
 * say; schema failures as 400 `Invalid input`; a body over the limit as 413 `Payload too large`;
 * other framework 4xx with their status; storage outages as 503 `Service unavailable`; anything
 * else as 500 `Internal server error`. Stacks and SQL go to the log only, with the request id.
 */
export function errorHandler(error: FastifyError | HttpError | Error, request: FastifyRequest, reply: FastifyReply) {
  if (error instanceof HttpError) {
    return reply.code(error.statusCode).headers(error.headers).send(errorEnvelope(error.statusCode, error.message))
  }
  if ('validation' in error && error.validation) {
    return reply.code(400).send(errorEnvelope(400, Messages.invalidInput))
  }
  if (error instanceof StorageUnavailableError) {
    request.log.warn({ err: error }, 'storage unavailable')
    return reply.code(503).send(errorEnvelope(503, Messages.unavailable))
  }
  const status = 'statusCode' in error ? Number(error.statusCode) : 500
  if (status >= 400 && status < 500) {
    request.log.info({ err: error }, 'client error')
    return reply.code(status).send(errorEnvelope(status, defaultMessageFor[status] ?? defaultMessageFor[400]!))
  }
  request.log.error({ err: error }, 'request failed')
  return reply.code(500).send(errorEnvelope(500, Messages.internalError))
}

/** Answers unknown paths with 404 `Route not found`. */
export function notFoundHandler(_request: FastifyRequest, reply: FastifyReply) {
  return reply.code(404).send(errorEnvelope(404, Messages.routeNotFound))
}

/** Answers a request target the router cannot read (e.g. `*` or a bad absolute URL) with 400 `Bad request`, before routing and auth. A path whose percent-encoding does not decode never comes here: see `routableUrl`. */
export function badUrlHandler(_error: Error, _request: FastifyRequest, reply: FastifyReply) {
  return reply.code(400).send(errorEnvelope(400, defaultMessageFor[400]!))
}

/** Answers in flight whose connection closes once they are sent (see {@link clientErrorHandler}). */
const closeAfter = new WeakSet<ServerResponse>()

/**
 * Collects the methods of every route as it is added, and returns the plugin that, registered
 * last, answers the other methods on each known path with 405 `Method not allowed` and an
 * `Allow` header: every method the router knows (all of Node's, see `acceptEveryMethod`), so
 * TRACE, PROPFIND, QUERY or CONNECT get 405 too. These answers are routes of their own, so they
 * carry no authentication.
 */
export function methodNotAllowed(app: FastifyInstance) {
  const methodsByUrl = new Map<string, Set<string>>()
  app.addHook('onRoute', (route: RouteOptions) => {
    const methods = methodsByUrl.get(route.url) ?? new Set<string>()
    for (const method of [route.method].flat()) methods.add(method.toUpperCase())
    methodsByUrl.set(route.url, methods)
  })
  return async function methodNotAllowedRoutes(instance: FastifyInstance) {
    const everyMethod = instance.supportedMethods
    for (const [url, methods] of [...methodsByUrl]) {
      // `*` is the CORS preflight route (OPTIONS on any path): other methods there stay 404.
      if (url === '*') continue
      // Routes a plugin adds without telling onRoute (e.g. the `/docs/` twin of `/docs`) count too.
      for (const method of everyMethod) if (instance.hasRoute({ url, method })) methods.add(method)
      if (methods.has('GET')) methods.add('HEAD')
      const allow = [...methods].sort().join(', ')
      const missing = everyMethod.filter((method) => !methods.has(method))
      if (missing.length === 0) continue
      instance.route({
        method: [...missing],
        url,
        exposeHeadRoute: false,
        schema: { hide: true }, // not operations: kept out of the API document
        handler: async (_request, reply) =>
          reply.code(405).header('allow', allow).send(errorEnvelope(405, Messages.methodNotAllowed))
      })
    }
  }
}

/** Whether `response` closes its connection once sent (`Connection: close`, or not keep-alive). */
function closesConnection(response: ServerResponse): boolean {
  return (response as ServerResponse & { _last?: boolean })._last === true || !response.shouldKeepAlive
}

/**
 * Answers a request Node's HTTP parser rejected (malformed request line, headers too large,
 * too slow) with the envelope, then closes the connection.
 *
 * When the bad bytes came after a complete request on the same connection (pipelined, or a body
 * longer than its Content-Length) and that request is still being answered, its answer is not
 * replaced: it may already have changed data, so the client must get it. The connection is
 * closed once that answer is sent. A request whose own body is too slow is answered 408.
 */
export function clientErrorHandler(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy()
    return
  }
  const inFlight = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage
  if (inFlight?.writableFinished && closesConnection(inFlight)) {
    // The answer is out and said `Connection: close`; Node ends the socket on its 'finish', a tick
    // later. Bytes parsed in between (e.g. junk after a request without Host) get no second answer.
    socket.end()
    return
  }
  if (inFlight && !inFlight.writableFinished) {
    if (inFlight.req.complete) {
      // The error is about bytes after a complete request: let that request's answer go out.
      inFlight.shouldKeepAlive = false
      if (!closeAfter.has(inFlight)) {
        closeAfter.add(inFlight)
        inFlight.once('finish', () => socket.end())
      }
      return
    }
    // The request itself is incomplete (e.g. its body too slow): answer below, unless an answer
    // has already started, which a second one would corrupt.
    if (inFlight.headersSent) {
      socket.destroy()
      return
    }
  }
  const status = error.code === 'HPE_HEADER_OVERFLOW' ? 431 : error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400
  const body = JSON.stringify(errorEnvelope(status, defaultMessageFor[status] ?? defaultMessageFor[400]!))
  socket.end(
    `HTTP/1.1 ${status} ${status === 431 ? 'Request Header Fields Too Large' : status === 408 ? 'Request Timeout' : 'Bad Request'}\r\n` +
      `Content-Type: ${JSON_CONTENT_TYPE}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`
  )
}
