import type { FastifyServerOptions } from 'fastify'
import type { Config } from '../config.js'

/** The settings that bound what one client connection may cost the service. */
export type ConnectionSettings = Pick<
  Config,
  'REQUEST_TIMEOUT' | 'HEADERS_TIMEOUT' | 'KEEP_ALIVE_TIMEOUT' | 'MAX_CONNECTIONS' | 'MAX_HEADER_SIZE'
>

/** Node checks request and header deadlines at this interval; never slower than 30 s. */
const MAX_CHECK_INTERVAL_MS = 30_000

/**
 * The Fastify / Node HTTP server options for slow and abusive clients (issue 5, "Slow and
 * abusive clients"), from the settings (seconds and bytes):
 * - `HEADERS_TIMEOUT`: the headers must arrive within it (a slowloris connection is answered 408
 *   and closed), at most `REQUEST_TIMEOUT`;
 * - `REQUEST_TIMEOUT`: the whole request, body included, must arrive within it (408);
 * - `KEEP_ALIVE_TIMEOUT`: idle keep-alive connections are closed after it;
 * - `MAX_HEADER_SIZE`: a larger request line and headers are answered 431.
 * Node checks the two deadlines every quarter of the headers timeout (at most every 30 s), so a
 * slow client is dropped at most 25% after its deadline. Node's own `Host` check is off: it
 * answers outside the envelope; `host-header.ts` does that check instead.
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
 * Caps the TCP connections the server holds at once at `MAX_CONNECTIONS`: Node closes any
 * connection accepted beyond it straight away, so a flood of idle sockets cannot exhaust file
 * descriptors while established clients keep being served.
 */
export function limitConnections(server: { maxConnections: number }, settings: Pick<Config, 'MAX_CONNECTIONS'>): void {
  server.maxConnections = settings.MAX_CONNECTIONS
}
