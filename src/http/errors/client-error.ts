import type { IncomingMessage, Server, ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import { JSON_CONTENT_TYPE, errorEnvelope } from '../envelope.js'
import { defaultMessageFor } from '../messages.js'

/**
 * The answers of each connection, in the order their requests came (HTTP/1.1 pipelining: Node
 * parses the requests a client sends back to back and queues their answers). Finished ones are
 * dropped from the front as new requests come; what remains ends with the latest request's answer.
 */
const answers = new WeakMap<Socket, ServerResponse[]>()

/** Connections whose parse error is being answered already (Node reports each later error too). */
const refused = new WeakSet<Socket>()

/**
 * Keeps, per connection, the answers of the requests Node handed to `server` (see
 * {@link clientErrorHandler}, which needs the latest one). Call it once, on the app's server.
 */
export function trackAnswers(server: Server): void {
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    const socket = request.socket
    let queued = answers.get(socket)
    if (queued === undefined) answers.set(socket, (queued = []))
    while (queued.length > 0 && queued[0]!.writableFinished) queued.shift()
    queued.push(response)
  })
}

/** Whether `response` closes its connection once sent (`Connection: close`, or not keep-alive). */
function closesConnection(response: ServerResponse): boolean {
  return (response as ServerResponse & { _last?: boolean })._last === true || !response.shouldKeepAlive
}

/** The envelope answer to a request Node's parser refused, sent as raw bytes, then the connection closes. */
function refuse(socket: Socket, error: Error & { code?: string }): void {
  if (!socket.writable) return
  const status = error.code === 'HPE_HEADER_OVERFLOW' ? 431 : error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400
  const body = JSON.stringify(errorEnvelope(status, defaultMessageFor[status] ?? defaultMessageFor[400]!))
  socket.end(
    `HTTP/1.1 ${status} ${status === 431 ? 'Request Header Fields Too Large' : status === 408 ? 'Request Timeout' : 'Bad Request'}\r\n` +
      `Content-Type: ${JSON_CONTENT_TYPE}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`
  )
}

/**
 * Answers a request Node's HTTP parser rejected (malformed request line, headers too large,
 * too slow) with the envelope, then closes the connection.
 *
 * The requests that came before the bad bytes on the same connection (pipelined, or a body longer
 * than its Content-Length) were handed to the routes and may have changed data: every one of
 * their answers is sent first, in order, then this one (400, 408 or 431), then the connection
 * closes. No answer is ever replaced or cut, so a client never has to guess whether a write it
 * sent was made. When the latest answer already said `Connection: close` (e.g. a request without
 * `Host`), the bad bytes after it get no answer of their own. A request whose own body is too slow
 * is answered 408 once the answers before it are out, unless its own answer has started, which a
 * second one would corrupt: then the connection is dropped.
 */
export function clientErrorHandler(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy()
    return
  }
  if (refused.has(socket)) return
  refused.add(socket)
  const queued = answers.get(socket) ?? []
  const latest = queued.at(-1)
  if (latest === undefined) return refuse(socket, error)
  if (latest.writableFinished) {
    // Everything is answered. A `Connection: close` answer ends the connection on its 'finish'
    // (a tick later): bytes parsed in between get no second answer.
    if (closesConnection(latest)) socket.end()
    else refuse(socket, error)
    return
  }
  if (latest.req.complete) {
    // The error is about bytes after a complete request: its answer (and those before it) first.
    latest.once('finish', () => (closesConnection(latest) ? socket.end() : refuse(socket, error)))
    return
  }
  // The latest request itself is incomplete (e.g. its body too slow).
  if (latest.headersSent) {
    socket.destroy()
    return
  }
  const before = queued.at(-2)
  if (before !== undefined && !before.writableFinished) before.once('finish', () => refuse(socket, error))
  else refuse(socket, error)
}
