/**
 * The package entry (`book-service` in package.json "main"/"types"): a small typed client of the
 * service ({@link createClient}) and the Book and Account types. Its imports are types, and the
 * change feed's reader (./subscription.ts, with the event-stream parser), so importing it
 * loads no server code.
 */
import type { Account, Role } from '../account/schema.js'
import type { Book, BookInput, BookPatch } from '../book/schema.js'
import { followChanges, type BookChangeEvent, type SubscribeOptions } from './subscription.js'
import type { CreatedWebhook, Delivery, RotatedSecret, Webhook, WebhookInput, WebhookPatch } from '../webhooks/schema.js'

/** The change feed's events and `subscribe`'s options (docs/change-feed.md "Change feed"). */
export type { BookChangeEvent, SubscribeOptions }

/** The Book types, as the service validates and returns them (src/book/schema.ts). */
export type { Book, BookInput, BookPatch }

/** An account as the service shows it (never its password), and the roles (docs/accounts.md "Accounts and roles"). */
export type { Account, Role }

/** Webhook endpoints and their deliveries as the service shows them (docs/webhooks.md). */
export type { CreatedWebhook, Delivery, RotatedSecret, Webhook, WebhookInput, WebhookPatch }

/** One entry of a book's history (README "History and restore"), newest first in a {@link HistoryPage}. */
export interface HistoryEntry {
  /** The book's version after the change; distinct within the book, growing with time. */
  version: number
  operation: 'created' | 'updated' | 'deleted' | 'restored'
  /** When: RFC 3339 UTC with milliseconds. */
  at: string
  /** Who: the token's `sub`, the command (`book-service import`), or null. */
  actor: string | null
  /** The book after the change; null for `deleted`. */
  book: Book | null
}

/** One page of `history()`: its entries and, while more follow, the cursor of the next page. */
export interface HistoryPage {
  entries: HistoryEntry[]
  /** Pass it as `cursor` for the next page; absent on the last page. */
  cursor?: string
}

/** A new account for `createUser`: the password is 12 to 1024 characters. */
export interface AccountInput {
  username: string
  password: string
  role: Role
}

/** A change for `updateUser`: a new password, a new role, or both (either revokes the account's tokens). */
export interface AccountChange {
  password?: string
  role?: Role
}

/** `data` of a successful `POST /login`. */
export interface LoginResult {
  /** The signed token; the client sends it as `Authorization: Bearer <token>` from now on. */
  token: string
  token_type: 'Bearer'
  /** Lifetime of the token in seconds. */
  expires_in: number
}

/** What {@link createClient} needs. */
export interface ClientOptions {
  /** Where the service is, e.g. `http://127.0.0.1:8080` (a trailing slash is fine). */
  baseUrl: string
  /** A token to send on the book operations; `login()` sets (or replaces) it. */
  token?: string
  /** The fetch to use (default: the global `fetch`). */
  fetch?: typeof fetch
}

/** The operations of the service (docs/contract.md "Operations"; the /users routes: docs/accounts.md "Accounts and roles"). */
export interface BookClient {
  /** `POST /login`: gets a token for `username` and `password` and uses it for the next calls. */
  login(username: string, password: string): Promise<LoginResult>
  /**
   * `POST /book`: stores a book; resolves with it, id included. With `options.idempotencyKey` (e.g.
   * `crypto.randomUUID()`, kept for the retries of this one create) the call may be repeated after
   * a timeout, a network error or a 503 without creating a second book: a repeat gets the first
   * answer (docs/api.md "Retries and Idempotency-Key"); 409 `Request in progress` while the first is
   * still being stored, 422 when the key was used for another book.
   */
  createBook(input: BookInput, options?: { idempotencyKey?: string }): Promise<Book>
  /** `GET /books`: every book, by id ascending. */
  listBooks(): Promise<Book[]>
  /**
   * `GET /books?q=…` (docs/search.md "Search"): every book whose title or author holds each term of `q`
   * (ignoring case and diacritics; a double-quoted part is one term; one typo tolerated in terms
   * of 5 or more characters), in relevance order; with `options.sort` (e.g. `-year`) in that order.
   * A `q` longer than 200 characters: a 400 `Invalid input` error.
   */
  searchBooks(q: string, options?: { sort?: 'id' | '-id' | 'title' | '-title' | 'author' | '-author' | 'year' | '-year' }): Promise<Book[]>
  /** `GET /book/{id}`: the book, or a 404 `Book not found` error. */
  getBook(id: number): Promise<Book>
  /** `PUT /book/{id}`: applies the fields present in `patch`; resolves with the stored result. */
  updateBook(id: number, patch: BookPatch): Promise<Book>
  /** `DELETE /book/{id}`: removes the book (a 404 `Book not found` error when there is none). */
  deleteBook(id: number): Promise<void>
  /**
   * `GET /book/{id}/history`: the book's history, newest first (a deleted book's too). With
   * `options.limit` (1 to 1000) one page, whose `cursor` gives the next; without it every entry.
   * A 404 `Book not found` error when the id has no history.
   */
  history(id: number, options?: { limit?: number; cursor?: string }): Promise<HistoryPage>
  /**
   * `POST /book/{id}/restore` (editor or admin): the book becomes what it was at `version`, as a
   * new version; a deleted book comes back under its id. With `options.ifMatch` (an `ETag`), only
   * while the book still has it (412 `Precondition failed` otherwise). Errors: 403, 404 `Book not
   * found`, 404 `Version not found`, 400.
   */
  restore(id: number, version: number, options?: { ifMatch?: string }): Promise<Book>
  /** `GET /users` (admin): every account. */
  listUsers(): Promise<Account[]>
  /** `POST /users` (admin): creates an account (409 `User already exists` when the name is taken, ignoring case). */
  createUser(input: AccountInput): Promise<Account>
  /** `PUT /users/{username}` (admin): changes the password and/or role (404 `User not found`, 409 `Cannot remove the last admin`). */
  updateUser(username: string, change: AccountChange): Promise<Account>
  /** `DELETE /users/{username}` (admin): removes the account (404 `User not found`, 409 `Cannot remove the last admin`). */
  deleteUser(username: string): Promise<void>
  /** `GET /webhooks` (admin): every endpoint, never a secret (docs/webhooks.md). */
  listWebhooks(): Promise<Webhook[]>
  /** `POST /webhooks` (admin): the new endpoint with its secret, which is shown only here. */
  createWebhook(input: WebhookInput): Promise<CreatedWebhook>
  /** `GET /webhooks/{id}` (admin). */
  getWebhook(id: string): Promise<Webhook>
  /** `PUT /webhooks/{id}` (admin): `url`, `events`, `description`, `enabled`. */
  updateWebhook(id: string, patch: WebhookPatch): Promise<Webhook>
  /** `DELETE /webhooks/{id}` (admin). */
  deleteWebhook(id: string): Promise<void>
  /** `GET /webhooks/{id}/deliveries` (admin): one page, newest first (`cursor`: a delivery id of the previous page's end). */
  listDeliveries(id: string, options?: { limit?: number; status?: Delivery['status']; cursor?: number }): Promise<Delivery[]>
  /** `POST /webhooks/{id}/replay` (admin): every change after `after` is sent again. */
  replayWebhook(id: string, after: number): Promise<void>
  /** `POST /webhooks/{id}/rotate` (admin): a new secret; the old one keeps signing for `overlap` seconds (default 86400). */
  rotateWebhookSecret(id: string, overlap?: number): Promise<RotatedSecret>
  /**
   * `GET /books/changes`: calls `options.onChange` with every change from now (or after
   * `options.after`), reconnecting by itself with `Last-Event-ID` after a break, so none is
   * missed or repeated. Resolves when `options.signal` aborts; rejects with a
   * {@link BookServiceError} on 401 (the token expired or was revoked), 403, 400 or 404.
   */
  subscribe(options: SubscribeOptions): Promise<void>
}

/**
 * The service answered with an error: `status` is the HTTP status and `message` the service's
 * exact text (`Book not found`, `Invalid token`, …). A response that is not the service's JSON
 * envelope (a proxy's error page, say) is reported with its status and `Unexpected response`.
 * Network failures are not caught: they reject with fetch's own error.
 */
export class BookServiceError extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** The `x-request-id` of the response, to find it in the service's log. */
    readonly requestId?: string
  ) {
    super(message)
    this.name = 'BookServiceError'
  }
}

interface Envelope<T> {
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
 * Makes a client for the service at `options.baseUrl`, for TypeScript and JavaScript callers
 * (Node 20+ or a browser: it only needs `fetch`). Every method resolves with the envelope's
 * `data`, or rejects with a {@link BookServiceError} carrying the HTTP status and exact message.
 *
 * @example
 * const client = createClient({ baseUrl: 'http://127.0.0.1:8080' })
 * await client.login('admin', process.env.AUTH_PASSWORD!)
 * const book = await client.createBook({ title: 'Dune', author: 'Frank Herbert', year: 1965 })
 *
 * @returns the {@link BookClient}; its methods reject with {@link BookServiceError} on any non-2xx answer.
 */
export function createClient(options: ClientOptions): BookClient {
  const base = options.baseUrl.replace(/\/+$/, '')
  const fetchImpl = options.fetch ?? globalThis.fetch
  let token = options.token

  async function call<T>(method: string, path: string, body?: unknown, extraHeaders: Record<string, string> = {}): Promise<T> {
    return (await callWithHeaders<T>(method, path, body, extraHeaders)).data
  }

  /** {@link call}, also giving the response's headers. */
  async function callWithHeaders<T>(method: string, path: string, body?: unknown, extraHeaders: Record<string, string> = {}) {
    const headers: Record<string, string> = { accept: 'application/json', ...extraHeaders }
    if (token !== undefined) headers.authorization = `Bearer ${token}`
    if (body !== undefined) headers['content-type'] = 'application/json'
    const response = await fetchImpl(`${base}${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body)
    })
    const { data } = await envelopeOf<T>(response)
    return { data, headers: response.headers }
  }

  /** The envelope of `response`; rejects with {@link BookServiceError} for an error or a body that is not one. */
  async function envelopeOf<T>(response: Response): Promise<Envelope<T>> {
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

  const bookPath = (id: number) => `/book/${encodeURIComponent(String(id))}`
  const userPath = (username: string) => `/users/${encodeURIComponent(username)}`
  const webhookPath = (id: string) => `/webhooks/${encodeURIComponent(id)}`

  return {
    async login(username, password) {
      const result = await call<LoginResult>('POST', '/login', { username, password })
      token = result.token
      return result
    },
    createBook: (input, createOptions) =>
      call<Book>('POST', '/book', input, createOptions?.idempotencyKey === undefined ? {} : { 'idempotency-key': createOptions.idempotencyKey }),
    listBooks: () => call<Book[]>('GET', '/books'),
    searchBooks: (q, searchOptions) => {
      const query = new URLSearchParams({ q })
      if (searchOptions?.sort !== undefined) query.set('sort', searchOptions.sort)
      return call<Book[]>('GET', `/books?${query.toString()}`)
    },
    getBook: (id) => call<Book>('GET', bookPath(id)),
    updateBook: (id, patch) => call<Book>('PUT', bookPath(id), patch),
    deleteBook: async (id) => {
      await call<null>('DELETE', bookPath(id))
    },
    history: async (id, page = {}) => {
      const query = new URLSearchParams()
      if (page.limit !== undefined) query.set('limit', String(page.limit))
      if (page.cursor !== undefined) query.set('after', page.cursor)
      const path = `${bookPath(id)}/history${query.size > 0 ? `?${query.toString()}` : ''}`
      const { data, headers } = await callWithHeaders<HistoryEntry[]>('GET', path)
      // The next page's cursor is the `after` of the Link header's URL.
      const next = /<([^>]*)>;\s*rel="next"/.exec(headers.get('link') ?? '')?.[1]
      const cursor = next === undefined ? undefined : new URL(next, 'http://link.invalid').searchParams.get('after') ?? undefined
      return cursor === undefined ? { entries: data } : { entries: data, cursor }
    },
    restore: (id, version, restoreOptions) =>
      call<Book>('POST', `${bookPath(id)}/restore`, { version }, restoreOptions?.ifMatch === undefined ? {} : { 'if-match': restoreOptions.ifMatch }),
    listUsers: () => call<Account[]>('GET', '/users'),
    createUser: (input) => call<Account>('POST', '/users', input),
    updateUser: (username, change) => call<Account>('PUT', userPath(username), change),
    deleteUser: async (username) => {
      await call<null>('DELETE', userPath(username))
    },
    listWebhooks: () => call<Webhook[]>('GET', '/webhooks'),
    createWebhook: (input) => call<CreatedWebhook>('POST', '/webhooks', input),
    getWebhook: (id) => call<Webhook>('GET', webhookPath(id)),
    updateWebhook: (id, patch) => call<Webhook>('PUT', webhookPath(id), patch),
    deleteWebhook: async (id) => {
      await call<null>('DELETE', webhookPath(id))
    },
    listDeliveries: (id, page = {}) => {
      const query = new URLSearchParams(Object.entries(page).filter(([, value]) => value !== undefined).map(([key, value]): [string, string] => [key, String(value)]))
      return call<Delivery[]>('GET', `${webhookPath(id)}/deliveries${query.size > 0 ? `?${query}` : ''}`)
    },
    replayWebhook: async (id, after) => {
      await call<null>('POST', `${webhookPath(id)}/replay`, { after })
    },
    rotateWebhookSecret: (id, overlap) => call<RotatedSecret>('POST', `${webhookPath(id)}/rotate`, overlap === undefined ? {} : { overlap }),
    subscribe: (subscription) =>
      followChanges(
        `${base}/books/changes`,
        (): Record<string, string> => (token === undefined ? {} : { authorization: `Bearer ${token}` }),
        subscription,
        fetchImpl,
        async ({ response }) => {
          try {
            await envelopeOf(response)
          } catch (error) {
            return error as Error
          }
          return new BookServiceError(response.status, 'Unexpected response')
        }
      )
  }
}
