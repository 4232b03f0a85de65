import http from 'node:http'
import https from 'node:https'
import { ForbiddenAddressError, guardedLookup } from './address-policy.js'
import { addressLiteral, specialPurposeRange } from './address-ranges.js'

/** The outcome of one delivery attempt. */
export interface AttemptOutcome {
  /** True for a 2xx answer. */
  readonly ok: boolean
  /** The answer's status, or null when none came (refused, timed out, connection failed). */
  readonly httpStatus: number | null
  /** Why it failed, for the delivery log (null when it succeeded). */
  readonly error: string | null
  /** The answer's `Retry-After`, in ms, when it had a valid one. */
  readonly retryAfterMs: number | null
}

/** How {@link sendAttempt} sends. */
export interface SendOptions {
  /** The whole attempt's limit (connect, send, answer), in ms: `WEBHOOK_TIMEOUT`. */
  timeoutMs: number
  allowPrivate: boolean
  /** The endpoint's keep-alive agents (one per scheme), so attempts reuse a connection. */
  agents: { http: http.Agent; https: https.Agent }
  /** Cancels the attempt (the dispatcher stopping). */
  signal?: AbortSignal
}

/** The most of a receiver's answer body read, in bytes (64 KiB); then the connection is closed. */
export const ANSWER_READ_LIMIT = 64 * 1024

/** Keep-alive agents of one endpoint: one connection at a time, as deliveries to it go one by one. */
export function endpointAgents(): SendOptions['agents'] {
  return { http: new http.Agent({ keepAlive: true, maxSockets: 1 }), https: new https.Agent({ keepAlive: true, maxSockets: 1 }) }
}

/** `Retry-After` in ms: delay-seconds or an HTTP date (RFC 9110); null when absent or unreadable. */
export function retryAfterMs(value: string | undefined, now = Date.now()): number | null {
  if (value === undefined) return null
  if (/^\s*\d+\s*$/.test(value)) return Number(value) * 1000
  const date = Date.parse(value)
  return Number.isNaN(date) ? null : Math.max(0, date - now)
}

/**
 * Sends one attempt: `POST` of `body` with `headers` to `url`; redirects are not followed (a 3xx
 * is a failure); the address connected to is checked (guardedLookup for a name, the literal
 * itself otherwise) unless private addresses are allowed; the answer's status decides, and at
 * most {@link ANSWER_READ_LIMIT} bytes of its body are read before the connection is closed.
 * Never rejects.
 */
export function sendAttempt(url: string, headers: Record<string, string>, body: string, options: SendOptions): Promise<AttemptOutcome> {
  const failed = (error: string, httpStatus: number | null = null, retryAfter: number | null = null): AttemptOutcome => ({
    ok: false, httpStatus, error, retryAfterMs: retryAfter
  })
  return new Promise((resolve) => {
    let target: URL
    try {
      target = new URL(url)
    } catch {
      return resolve(failed('not an absolute URL'))
    }
    const literal = addressLiteral(target)
    const range = options.allowPrivate || literal === undefined ? undefined : specialPurposeRange(literal)
    if (range !== undefined) return resolve(failed(`refused: ${literal} is a special-purpose address (${range})`))
    const secure = target.protocol === 'https:'
    let settled = false
    const finish = (outcome: AttemptOutcome) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      options.signal?.removeEventListener('abort', abort)
      resolve(outcome)
    }
    const request = (secure ? https : http).request(target, {
      method: 'POST',
      agent: secure ? options.agents.https : options.agents.http,
      headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
      ...(options.allowPrivate ? {} : { lookup: guardedLookup })
    })
    const timer = setTimeout(() => {
      request.destroy()
      finish(failed(`timed out after ${options.timeoutMs / 1000} s`))
    }, options.timeoutMs)
    const abort = () => {
      request.destroy()
      finish(failed('stopped'))
    }
    options.signal?.addEventListener('abort', abort, { once: true })
    request.on('error', (error) => {
      const message = error instanceof ForbiddenAddressError ? `refused: ${error.message}` : error.message || String(error)
      finish(failed(message))
    })
    request.on('response', (response) => {
      const status = response.statusCode ?? 0
      const retryAfter = retryAfterMs(response.headers['retry-after'])
      const outcome = (): AttemptOutcome => {
        if (status >= 200 && status < 300) return { ok: true, httpStatus: status, error: null, retryAfterMs: null }
        if (status >= 300 && status < 400) return failed(`answered ${status}: redirects are not followed`, status, retryAfter)
        return failed(`answered ${status}`, status, retryAfter)
      }
      // The answer's body is read and dropped, so the connection can serve the next attempt; past
      // ANSWER_READ_LIMIT bytes the connection is closed instead (docs/contract.md "Webhooks"),
      // so a receiver streaming without end costs no more than that.
      let read = 0
      response.on('data', (chunk: Buffer) => {
        read += chunk.length
        if (read <= ANSWER_READ_LIMIT) return
        finish(outcome())
        request.destroy()
      })
      response.on('error', () => finish(failed('the answer was cut', status)))
      response.on('end', () => finish(outcome()))
    })
    request.end(body)
  })
}
