/**
 * The page's one way of calling the service: JSON in, the envelope out (`docs/contract.md`
 * "Wire": every answer is `{"status", "message", "data"}`), the token as `Authorization: Bearer`.
 */

/** A non-2xx answer of the service: its status and exact message. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string
  ) {
    super(message)
    this.name = 'ApiError'
  }
}

/** The service could not be reached (or its answer not read): nothing is known about the outcome. */
export class NetworkError extends Error {
  override name = 'NetworkError'
}

/** A 2xx answer: the envelope's `data`, and the headers the page reads (`ETag`, `Link`, `X-Total-Count`). */
export interface Answer<T> {
  status: number
  data: T
  headers: Headers
}

/** What every call needs: the session's token, and what to do when the service no longer accepts it. */
export interface Caller {
  token?: string
  /** Called on a 401 to any call made with a token: the session has expired or was revoked. */
  onUnauthorized?: () => void
  /** The fetch to use (tests pass their own); default the global one. */
  fetch?: typeof fetch
}

/** Options of one call. */
export interface CallOptions {
  body?: unknown
  headers?: Record<string, string>
}

function isEnvelope(value: unknown): value is { status: number; message: string; data: unknown } {
  return typeof value === 'object' && value !== null && typeof (value as { message?: unknown }).message === 'string' && 'data' in value
}

/**
 * Calls `method path` on the page's own origin.
 *
 * @returns the answer when its status is 2xx.
 * @throws {ApiError} for any other status, with the service's message (a 401 calls `caller.onUnauthorized` first).
 * @throws {NetworkError} when no answer came.
 */
export async function call<T>(caller: Caller, method: string, path: string, options: CallOptions = {}): Promise<Answer<T>> {
  const headers: Record<string, string> = { accept: 'application/json', ...options.headers }
  if (caller.token !== undefined) headers.authorization = `Bearer ${caller.token}`
  if (options.body !== undefined) headers['content-type'] = 'application/json'
  let response: Response
  let parsed: unknown
  try {
    response = await (caller.fetch ?? fetch)(path, {
      method,
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      cache: 'no-store'
    })
    parsed = response.status === 304 ? undefined : await response.json().catch(() => undefined)
  } catch (error) {
    throw new NetworkError(error instanceof Error ? error.message : String(error))
  }
  if (response.ok) return { status: response.status, data: (isEnvelope(parsed) ? parsed.data : undefined) as T, headers: response.headers }
  if (response.status === 401 && caller.token !== undefined) caller.onUnauthorized?.()
  throw new ApiError(response.status, isEnvelope(parsed) ? parsed.message : response.statusText)
}
