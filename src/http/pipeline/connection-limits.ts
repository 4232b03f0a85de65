import type { IncomingMessage, Server, ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import proxyAddr from '@fastify/proxy-addr'
import type { FastifyServerOptions } from 'fastify'
import { trustProxyOption, type Config } from '../../config.js'

/** The settings that bound what one client connection may cost the service. */
export type ConnectionSettings = Pick<
  Config,
  'REQUEST_TIMEOUT' | 'HEADERS_TIMEOUT' | 'KEEP_ALIVE_TIMEOUT' | 'MAX_CONNECTIONS' | 'MAX_HEADER_SIZE'
>

/** Node checks request and header deadlines at this interval; never slower than 30 s. */
const MAX_CHECK_INTERVAL_MS = 30_000

/**
 * The Fastify / Node HTTP server options for slow and abusive clients (docs/operations.md "Reliability and
 * security"), from the settings (seconds and bytes):
 * - `HEADERS_TIMEOUT`: the headers must arrive within it (a slowloris connection is answered 408
 *   and closed), at most `REQUEST_TIMEOUT`;
 * - `REQUEST_TIMEOUT`: the whole request, body included, must arrive within it (408);
 * - `KEEP_ALIVE_TIMEOUT`: idle keep-alive connections are closed after it;
 * - `MAX_HEADER_SIZE`: a larger request line and headers are answered 431.
 * Node checks the two deadlines every quarter of the headers timeout (at most every 30 s), so a
 * slow client is dropped at most 25% after its deadline. Node's own `Host` check is off: it
 * answers outside the envelope; src/http/pipeline/host-header.ts does that check instead.
 *
 * `MAX_CONNECTIONS` is not a constructor option: see {@link limitConnections}.
 */
export function connectionOptions(settings: ConnectionSettings): Pick<
  FastifyServerOptions,
  'requestTimeout' | 'keepAliveTimeout'
> & {
  http: { headersTimeout: number; maxHeaderSize: number; connectionsCheckingInterval: number; requireHostHeader: boolean }
} {
  const requestMs = settings.REQUEST_TIMEOUT * 1000
  const headersMs = Math.min(settings.HEADERS_TIMEOUT * 1000, requestMs)
  return {
    requestTimeout: requestMs,
    keepAliveTimeout: settings.KEEP_ALIVE_TIMEOUT * 1000,
    http: {
      headersTimeout: headersMs,
      maxHeaderSize: settings.MAX_HEADER_SIZE,
      connectionsCheckingInterval: Math.min(MAX_CHECK_INTERVAL_MS, Math.ceil(headersMs / 4)),
      requireHostHeader: false
    }
  }
}

/**
 * Caps the TCP connections the server holds at once at `MAX_CONNECTIONS` (docs/operations.md "Reliability and
 * security"), so a flood of sockets cannot exhaust file descriptors. At the cap, a new connection
 * is not refused while an idle one is held: the connection idle the longest (one that has not
 * sent a request yet, or a keep-alive connection between two requests) is closed to make room.
 * A connection with an answer in progress (a change feed stream included) is never closed for
 * this; only when every connection has one is the new connection closed at once. So sockets
 * opened and left idle, from however many addresses, cannot keep a client that sends its request
 * out: its connection is the newest, and the idle ones go first.
 *
 * Register it after {@link limitConnectionsPerAddress}: a connection that one closes makes no room here.
 */
export function limitConnections(server: Server, settings: Pick<Config, 'MAX_CONNECTIONS'>): void {
  const max = settings.MAX_CONNECTIONS
  // Every open connection, and how many answers each has in progress (pipelining may make it more than one).
  const inFlight = new Map<Socket, number>()
  // The idle connections, longest idle first (a Set keeps insertion order).
  const idle = new Set<Socket>()
  server.on('connection', (socket: Socket) => {
    if (socket.destroyed) return
    if (inFlight.size >= max) {
      const oldest = idle.values().next()
      if (oldest.done) {
        socket.destroy()
        return
      }
      idle.delete(oldest.value)
      oldest.value.destroy()
    }
    inFlight.set(socket, 0)
    idle.add(socket)
    socket.once('close', () => {
      inFlight.delete(socket)
      idle.delete(socket)
    })
  })
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    const socket = request.socket
    const count = inFlight.get(socket)
    if (count === undefined) return
    inFlight.set(socket, count + 1)
    idle.delete(socket)
    response.once('close', () => {
      const left = inFlight.get(socket)
      if (left === undefined) return
      inFlight.set(socket, left - 1)
      // Idle again: now the newest idle connection.
      if (left === 1 && !socket.destroyed) idle.add(socket)
    })
  })
}

/**
 * Caps the TCP connections open at once from one client address at `MAX_CONNECTIONS_PER_ADDRESS`
 * (docs/operations.md "Reliability and security"): a connection from an address that already holds that many
 * is closed at once, so one client re-opening idle sockets as fast as they are closed holds at
 * most its share of `MAX_CONNECTIONS`, and every other client still gets in. The addresses
 * `TRUST_PROXY` trusts (its proxies, through which every client arrives; all of them for `true`)
 * are not capped. The default (256) is far above what a browser opens to one host (6 connections,
 * a live stream of events included), so many users behind one NAT address fit too.
 */
export function limitConnectionsPerAddress(server: Server, settings: Pick<Config, 'MAX_CONNECTIONS_PER_ADDRESS' | 'TRUST_PROXY'>): void {
  const trust = trustProxyOption(settings.TRUST_PROXY)
  if (trust === true) return
  const trusted = trust === false ? () => false : proxyAddr.compile(trust)
  const max = settings.MAX_CONNECTIONS_PER_ADDRESS
  const open = new Map<string, number>()
  server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress
    if (address === undefined || trusted(address, 0)) return
    const held = open.get(address) ?? 0
    if (held >= max) {
      socket.destroy()
      return
    }
    open.set(address, held + 1)
    socket.once('close', () => {
      const left = open.get(address)! - 1
      if (left === 0) open.delete(address)
      else open.set(address, left)
    })
  })
}
