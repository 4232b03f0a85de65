import { createClient, type BookClient } from '../../../src/client/index.js'

/** What the page's client needs: the session's token, what to do when it stops working, and (in tests) a fetch. */
export interface PageClientOptions {
  token?: string
  /** Called on a 401 to any call made with the token: the session has expired or was revoked. */
  onUnauthorized?: () => void
  /** The fetch to use (tests pass their own); default the global one. */
  fetch?: typeof fetch
}

/**
 * The typed client (src/client/) as the page uses it: on the page's own origin, never answered
 * from the browser's cache (`no-store`: a list or a book is always the stored one).
 */
export function pageClient(options: PageClientOptions = {}): BookClient {
  return createClient({ baseUrl: '', cache: 'no-store', ...options })
}

/** `POST /login` (`docs/contract.md` "Authentication"): the token for `username` and `password`. */
export async function login(username: string, password: string): Promise<string> {
  return (await pageClient().login(username, password)).token
}
