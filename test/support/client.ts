import { signToken } from './app.js'

/** The envelope as the tests read it; `data` is whatever the route returns. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Envelope = { status: number; message: string; data: any }

/**
 * Sends one request to a real server with a valid bearer token (signed with the test secret) and
 * a JSON body when `body` is given.
 *
 * @returns the HTTP status and the parsed envelope.
 */
export async function call(url: string, method = 'GET', body?: unknown): Promise<{ status: number; body: Envelope }> {
  const response = await fetch(url, {
    method,
    headers: {
      authorization: `Bearer ${signToken()}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' })
    },
    body: body === undefined ? undefined : JSON.stringify(body)
  })
  return { status: response.status, body: (await response.json()) as Envelope }
}

/** Resolves once `check()` returns true, polling every 50 ms; rejects with `what` after `timeoutMs`. */
export async function eventually(what: string, check: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await check().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}
