import { BookServiceError } from './errors.js'

/** Every answer's body (docs/contract.md "Wire"): `{"status", "message", "data"}`. */
export interface Envelope<T> {
  status: number
  message: string
  data: T
}

function isEnvelope(value: unknown): value is Envelope<unknown> {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as Envelope<unknown>).status === 'number' &&
    typeof (value as Envelope<unknown>).message === 'string' &&
    'data' in value
  )
}

/**
 * Reads the envelope of `response`.
 *
 * @throws {BookServiceError} for a non-2xx status (with the service's message), or a body that is
 *   not an envelope (`Unexpected response`); either carries the response's `x-request-id`.
 */
export async function readEnvelope<T>(response: Response): Promise<Envelope<T>> {
  const requestId = response.headers.get('x-request-id') ?? undefined
  let parsed: unknown
  try {
    parsed = await response.json()
  } catch {
    parsed = undefined
  }
  if (!isEnvelope(parsed)) throw new BookServiceError(response.status, 'Unexpected response', requestId)
  if (!response.ok) throw new BookServiceError(response.status, parsed.message, requestId)
  return parsed as Envelope<T>
}

/**
 * The cursor of the next page: the `after` parameter of the `Link: <…>; rel="next"` header
 * (docs/api.md "Large collections and concurrent edits"), or undefined on the last page.
 */
export function nextCursor(link: string | null): string | undefined {
  const target = link?.match(/<([^>]*)>\s*;\s*rel="?next"?/)?.[1]
  if (target === undefined) return undefined
  return new URLSearchParams(target.split('?')[1] ?? '').get('after') ?? undefined
}
