import type { IncomingMessage, ServerResponse } from 'node:http'
import helmet, { type HelmetOptions } from 'helmet'

/** The helmet options of the service (see {@link securityHeaders}). */
const OPTIONS: HelmetOptions = {
  contentSecurityPolicy: { directives: { upgradeInsecureRequests: null } },
  strictTransportSecurity: false
}

/**
 * The headers helmet sets with `options`, computed once: helmet's middleware is run against a
 * response that only records them. They are the same for every response, so there is no need
 * to run helmet's middleware chain (and re-parse the CSP directives) on each request.
 *
 * @returns header name (lower case) → value.
 */
export function helmetHeaders(options: HelmetOptions = OPTIONS): Record<string, string> {
  const headers: Record<string, string> = {}
  const recorder = {
    setHeader: (name: string, value: string | number | readonly string[]) => {
      headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : String(value)
    },
    removeHeader: (name: string) => {
      delete headers[name.toLowerCase()]
    },
    getHeader: (name: string) => headers[name.toLowerCase()]
  }
  let failure: unknown
  helmet(options)({} as IncomingMessage, recorder as unknown as ServerResponse, (error?: unknown) => (failure = error))
  if (failure) throw failure
  return headers
}

/**
 * The basic security headers of every response, with helmet's defaults:
 * `Content-Security-Policy`, `X-Content-Type-Options: nosniff`, `X-Frame-Options: SAMEORIGIN`,
 * `Referrer-Policy: no-referrer`, `Cross-Origin-*-Policy`, … The CSP allows only this origin's own
 * scripts, which is all the bundled docs page at /docs uses. Left out on purpose:
 * `upgrade-insecure-requests` (the service speaks plain HTTP, so the docs page would break when
 * opened by address) and `Strict-Transport-Security` (set it at the TLS proxy).
 *
 * Computed once by helmet at start-up; the first `onRequest` hook (src/http/pipeline/request-start.ts)
 * sets them on each reply (running helmet per request cost ~9 % of the CPU of a GET /book/{id};
 * see docs/benchmarks.md).
 *
 * @returns header name (lower case) → value, frozen.
 */
export function securityHeaders(): Readonly<Record<string, string>> {
  return Object.freeze(helmetHeaders())
}
