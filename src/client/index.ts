/**
 * The package entry (`book-service` in package.json "main"/"types"): the typed client of the
 * whole API ({@link createClient}), its errors and the Book and Account types; the `book-service`
 * commands that call a running service and the web page are built on it. Its imports are types
 * and its own folder (the errors, the reading of an answer, the change feed's reader) and
 * `eventsource-parser` (the event stream's lines), so importing it loads no server code and no
 * `node:` module.
 */
import type { ApiToken, ApiTokenInput, CreatedApiToken } from '../account/api-token-schema.js'
import type { Account, Role } from '../account/schema.js'
import type { Book, BookInput, BookPatch } from '../book/schema.js'
import { nextCursor, readEnvelope } from './answer.js'
import { BookServiceError, NetworkError } from './errors.js'
import { followChanges, type BookChangeEvent, type SubscribeOptions } from './subscription.js'
import type { CreatedWebhook, Delivery, RotatedSecret, Webhook, WebhookInput, WebhookPatch } from '../webhooks/schema.js'

/** The change feed's events and `subscribe`'s options (docs/change-feed.md "Change feed"). */
export type { BookChangeEvent, SubscribeOptions }

/** The errors every method rejects with, and the reading of an answer. */
export { BookServiceError, NetworkError, nextCursor, readEnvelope }

/** The Book types, as the service validates and returns them (src/book/schema.ts). */
export type { Book, BookInput, BookPatch }

/** An account as the service shows it (never its password), and the roles (docs/accounts.md "Accounts and roles"). */
export type { Account, Role }

/** API tokens as the service shows them, and what `createApiToken` sends (docs/api-tokens.md). */
export type { ApiToken, ApiTokenInput, CreatedApiToken }

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

/** The orders of a list (docs/api.md "Large collections and concurrent edits"): a field, `-` for descending. */
export type BookSort = 'id' | '-id' | 'title' | '-title' | 'author' | '-author' | 'year' | '-year'

/**
 * What `listBookPage` asks `GET /books` for (docs/api.md "Large collections and concurrent edits",
 * docs/search.md "Search"). Numbers may be given as text, as a page's address holds them.
 */
export interface BookQuery {
  /** The search: title and author hold each term, ignoring case and diacritics (at most 200 characters). */
  q?: string
  /** Title or author containing this text, ignoring case. */
  title?: string
  author?: string
  year?: number | string
  year_min?: number | string
  year_max?: number | string
  sort?: BookSort | string
  /** Books on the page, 1 to 1000. */
  limit?: number | string
  /** The `cursor` of the previous page: where this one starts. */
  cursor?: string
  /** Also count every book matching the filters (`count=true`, answered in `X-Total-Count`). */
  count?: boolean
}

/** One page of `listBookPage`. */
export interface BookPage {
  books: Book[]
  /** Pass it as `cursor` for the next page (the `Link` header's `rel="next"`); absent on the last page. */
  cursor?: string
  /** With `count: true`: how many books match the filters (`X-Total-Count`). */
  total?: number
}

/** A book with the `ETag` of its stored version, to send back as `ifMatch` (docs/api.md "Large collections and concurrent edits"). */
export interface TaggedBook {
  book: Book
  /** The `ETag` header (`"…"`); `*` (any version) when an answer had none. */
  etag: string
}

/** `ifMatch`: the write happens only while the book still has this `ETag` (412 `Precondition failed` otherwise). */
export interface WriteOptions {
  ifMatch?: string
}

/** The service's message for a wrong current password of `changeOwnPassword` (docs/accounts.md "Accounts and roles"). */
export const WRONG_CURRENT_PASSWORD = 'Current password is incorrect'

/** What {@link createClient} needs. */
export interface ClientOptions {
  /** Where the service is, e.g. `http://127.0.0.1:8080` (a trailing slash is fine); `''` in a page the service serves (its own origin). */
  baseUrl: string
  /** A token to send on the book operations; `login()` sets (or replaces) it. */
  token?: string
  /** The fetch to use (default: the global `fetch`). */
  fetch?: typeof fetch
  /**
   * Called on a 401 answer to a call sent with a token (it expired or was revoked), before the
   * call rejects; not for `login` nor for `changeOwnPassword`'s wrong current password, which say
   * nothing about the token (`subscribe` rejects with its 401 instead).
   */
  onUnauthorized?: () => void
  /** fetch's `cache` mode for every call (a browser page passes `no-store`). */
  cache?: RequestInit['cache']
}

/**
 * The later of two `Commit-Position` values (`16/B374D848`: two hexadecimal halves, the database's
 * write-ahead log position; docs/api.md "Read your writes"), or `next` when `kept` is undefined.
 */
function laterPosition(kept: string | undefined, next: string): string {
  if (kept === undefined) return next
  const value = (position: string) => position.split('/').map((half) => half.padStart(8, '0').toUpperCase()).join('/')
  return value(next) > value(kept) ? next : kept
}

/**
 * The operations of the service (docs/contract.md "Operations"; the /users routes: docs/accounts.md
 * "Accounts and roles"; the /tokens routes: docs/api-tokens.md).
 */
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
  /**
   * `POST /book` with `idempotencyKey`, as `createBook`: the book, and whether the answer is the
   * key's first answer replayed (`Idempotent-Replayed: true`: stored by an earlier try, nothing
   * stored now).
   */
  createBookOnce(input: BookInput, idempotencyKey: string): Promise<{ book: Book; replayed: boolean }>
  /** `GET /books`: every book, by id ascending. */
  listBooks(): Promise<Book[]>
  /**
   * `GET /books` with filters, sort and `limit`: one page, the cursor of the next (from `Link`) and,
   * with `count`, the number of books matching (`X-Total-Count`). A bad parameter: 400 `Invalid input`.
   */
  listBookPage(query: BookQuery): Promise<BookPage>
  /**
   * `GET /books?q=…` (docs/search.md "Search"): every book whose title or author holds each term of `q`
   * (ignoring case and diacritics; a double-quoted part is one term; one typo tolerated in terms
   * of 5 or more characters), in relevance order; with `options.sort` (e.g. `-year`) in that order.
   * A `q` longer than 200 characters: a 400 `Invalid input` error.
   */
  searchBooks(q: string, options?: { sort?: 'id' | '-id' | 'title' | '-title' | 'author' | '-author' | 'year' | '-year' }): Promise<Book[]>
  /** `GET /book/{id}`: the book, or a 404 `Book not found` error. */
  getBook(id: number): Promise<Book>
  /** `GET /book/{id}`: the book and the `ETag` of its version, for `ifMatch` on a later write. */
  getTaggedBook(id: number): Promise<TaggedBook>
  /** `PUT /book/{id}`: applies the fields present in `patch`; resolves with the stored result. With `options.ifMatch`, a 412 when the book changed since. */
  updateBook(id: number, patch: BookPatch, options?: WriteOptions): Promise<Book>
  /** `DELETE /book/{id}`: removes the book (a 404 `Book not found` error when there is none). With `options.ifMatch`, a 412 when the book changed since. */
  deleteBook(id: number, options?: WriteOptions): Promise<void>
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
   * found`, 404 `Version not found`, 422 `Version cannot be restored`, 400.
   */
  restore(id: number, version: number, options?: WriteOptions): Promise<Book>
  /** `GET /users` (admin): every account. */
  listUsers(): Promise<Account[]>
  /** `POST /users` (admin): creates an account (409 `User already exists` when the name is taken, ignoring case). */
  createUser(input: AccountInput): Promise<Account>
  /** `PUT /users/{username}` (admin): changes the password and/or role (404 `User not found`, 409 `Cannot remove the last admin`). */
  updateUser(username: string, change: AccountChange): Promise<Account>
  /** `DELETE /users/{username}` (admin): removes the account (404 `User not found`, 409 `Cannot remove the last admin`). */
  deleteUser(username: string): Promise<void>
  /**
   * `PUT /users/{username}/password` (any role, the token's own account): 401 `Current password is
   * incorrect` ({@link WRONG_CURRENT_PASSWORD}) when `current` is wrong. The change revokes the
   * account's tokens, this client's included: `login` again with `next`.
   */
  changeOwnPassword(username: string, current: string, next: string): Promise<Account>
  /**
   * `POST /tokens` (any role): an API token of this client's account for a program
   * (docs/api-tokens.md), `input.role` no higher than the caller's (403 `Forbidden` otherwise;
   * default the caller's), expiring after `input.expires_in_days` (1 to 3650) or never. Its
   * `token` is in this answer only.
   */
  createApiToken(input: ApiTokenInput): Promise<CreatedApiToken>
  /**
   * `GET /tokens` (any role): this account's API tokens, newest first, never the token itself;
   * with `options.all` (admins; 403 otherwise) every account's, each with its `username`.
   */
  listApiTokens(options?: { all?: boolean }): Promise<ApiToken[]>
  /**
   * `DELETE /tokens/{id}`: revokes the API token `id` (its owner, or an admin); 404 `Token not
   * found` for an unknown id or another account's token.
   */
  revokeApiToken(id: string): Promise<void>
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
   * missed or repeated; network failures and 5xx answers are retried the same way, after a delay
   * growing from 1 s to 30 s with jitter (docs/change-feed.md "Change feed"). Resolves when
   * `options.signal` aborts; rejects with a {@link BookServiceError} on 401 (the token expired or
   * was revoked), 403, 400, 404, or a 200 that is not `text/event-stream` (not the feed).
   */
  subscribe(options: SubscribeOptions): Promise<void>
}

/**
 * Makes a client for the service at `options.baseUrl`, for TypeScript and JavaScript callers
 * (Node 20+ or a browser: it only needs `fetch`). Every method resolves with the envelope's
 * `data`, or rejects with a {@link BookServiceError} carrying the HTTP status and exact message,
 * or with a {@link NetworkError} when no answer came.
 *
 * @example
 * const client = createClient({ baseUrl: 'http://127.0.0.1:8080' })
 * await client.login('admin', process.env.AUTH_PASSWORD!)
 * const book = await client.createBook({ title: 'Dune', author: 'Frank Herbert', year: 1965 })
 *
 * @returns the {@link BookClient}; its methods reject with {@link BookServiceError} on any non-2xx answer, {@link NetworkError} on none.
 */
export function createClient(options: ClientOptions): BookClient {
  const base = options.baseUrl.replace(/\/+$/, '')
  const fetchImpl = options.fetch ?? globalThis.fetch
  let token = options.token
  // Read your writes on a service that reads from replicas: the latest position a write of this
  // client committed at, sent with every later call, so its reads see its writes whichever instance
  // and replica answer them (docs/api.md "Read your writes"). Absent on a service without replicas.
  let commitPosition: string | undefined

  async function call<T>(method: string, path: string, body?: unknown, extraHeaders: Record<string, string> = {}): Promise<T> {
    return (await callWithHeaders<T>(method, path, body, extraHeaders)).data
  }

  /**
   * {@link call}, also giving the response's headers.
   *
   * @param keepsToken whether a 401 `message` says nothing about the token (no `onUnauthorized`).
   */
  async function callWithHeaders<T>(
    method: string,
    path: string,
    body?: unknown,
    extraHeaders: Record<string, string> = {},
    keepsToken: (message: string) => boolean = () => false
  ) {
    const headers: Record<string, string> = { accept: 'application/json', ...extraHeaders }
    const sentToken = token
    if (sentToken !== undefined) headers.authorization = `Bearer ${sentToken}`
    if (commitPosition !== undefined) headers['commit-position'] = commitPosition
    if (body !== undefined) headers['content-type'] = 'application/json'
    let response: Response
    try {
      response = await fetchImpl(`${base}${path}`, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        ...(options.cache === undefined ? {} : { cache: options.cache })
      })
    } catch (error) {
      throw new NetworkError(error instanceof Error ? error.message : String(error), { cause: error })
    }
    const committed = response.headers.get('commit-position')
    if (committed !== null && /^[0-9A-Fa-f]{1,8}\/[0-9A-Fa-f]{1,8}$/.test(committed)) commitPosition = laterPosition(commitPosition, committed)
    try {
      const { data } = await readEnvelope<T>(response)
      return { data, headers: response.headers }
    } catch (error) {
      if (error instanceof BookServiceError && error.status === 401 && sentToken !== undefined && !keepsToken(error.message)) options.onUnauthorized?.()
      throw error
    }
  }

  const ifMatch = (writeOptions: WriteOptions | undefined): Record<string, string> =>
    writeOptions?.ifMatch === undefined ? {} : { 'if-match': writeOptions.ifMatch }
  const tagged = ({ data, headers }: { data: Book; headers: Headers }): TaggedBook => ({ book: data, etag: headers.get('etag') ?? '*' })

  const bookPath = (id: number) => `/book/${encodeURIComponent(String(id))}`
  const userPath = (username: string) => `/users/${encodeURIComponent(username)}`
  const webhookPath = (id: string) => `/webhooks/${encodeURIComponent(id)}`

  return {
    async login(username, password) {
      const { data: result } = await callWithHeaders<LoginResult>('POST', '/login', { username, password }, {}, () => true)
      token = result.token
      return result
    },
    createBook: (input, createOptions) =>
      call<Book>('POST', '/book', input, createOptions?.idempotencyKey === undefined ? {} : { 'idempotency-key': createOptions.idempotencyKey }),
    createBookOnce: async (input, idempotencyKey) => {
      const { data, headers } = await callWithHeaders<Book>('POST', '/book', input, { 'idempotency-key': idempotencyKey })
      return { book: data, replayed: headers.get('idempotent-replayed') === 'true' }
    },
    listBooks: () => call<Book[]>('GET', '/books'),
    listBookPage: async ({ cursor, count, ...filters }) => {
      const query = new URLSearchParams()
      for (const [name, value] of Object.entries(filters)) if (value !== undefined && value !== '') query.set(name, String(value))
      if (cursor !== undefined) query.set('after', cursor)
      if (count === true) query.set('count', 'true')
      const { data, headers } = await callWithHeaders<Book[]>('GET', `/books${query.size > 0 ? `?${query.toString()}` : ''}`)
      const total = headers.get('x-total-count')
      const next = nextCursor(headers.get('link'))
      return { books: data, ...(next === undefined ? {} : { cursor: next }), ...(total === null ? {} : { total: Number(total) }) }
    },
    searchBooks: (q, searchOptions) => {
      const query = new URLSearchParams({ q })
      if (searchOptions?.sort !== undefined) query.set('sort', searchOptions.sort)
      return call<Book[]>('GET', `/books?${query.toString()}`)
    },
    getBook: (id) => call<Book>('GET', bookPath(id)),
    getTaggedBook: async (id) => tagged(await callWithHeaders<Book>('GET', bookPath(id))),
    updateBook: (id, patch, writeOptions) => call<Book>('PUT', bookPath(id), patch, ifMatch(writeOptions)),
    deleteBook: async (id, writeOptions) => {
      await call<null>('DELETE', bookPath(id), undefined, ifMatch(writeOptions))
    },
    history: async (id, page = {}) => {
      const query = new URLSearchParams()
      if (page.limit !== undefined) query.set('limit', String(page.limit))
      if (page.cursor !== undefined) query.set('after', page.cursor)
      const path = `${bookPath(id)}/history${query.size > 0 ? `?${query.toString()}` : ''}`
      const { data, headers } = await callWithHeaders<HistoryEntry[]>('GET', path)
      const cursor = nextCursor(headers.get('link'))
      return cursor === undefined ? { entries: data } : { entries: data, cursor }
    },
    restore: (id, version, restoreOptions) => call<Book>('POST', `${bookPath(id)}/restore`, { version }, ifMatch(restoreOptions)),
    listUsers: () => call<Account[]>('GET', '/users'),
    createUser: (input) => call<Account>('POST', '/users', input),
    updateUser: (username, change) => call<Account>('PUT', userPath(username), change),
    deleteUser: async (username) => {
      await call<null>('DELETE', userPath(username))
    },
    changeOwnPassword: async (username, current, next) =>
      (
        await callWithHeaders<Account>(
          'PUT',
          `${userPath(username)}/password`,
          { current_password: current, new_password: next },
          {},
          (message) => message === WRONG_CURRENT_PASSWORD
        )
      ).data,
    createApiToken: (input) => call<CreatedApiToken>('POST', '/tokens', input),
    listApiTokens: (listOptions) => call<ApiToken[]>('GET', listOptions?.all === true ? '/tokens?all=true' : '/tokens'),
    revokeApiToken: async (id) => {
      await call<null>('DELETE', `/tokens/${encodeURIComponent(id)}`)
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
        {
          url: `${base}/books/changes`,
          headers: (): Record<string, string> => (token === undefined ? {} : { authorization: `Bearer ${token}` }),
          cache: options.cache,
          fetch: fetchImpl,
          refuse: async ({ response }) => {
            try {
              await readEnvelope(response)
            } catch (error) {
              return error as Error
            }
            return new BookServiceError(response.status, 'Unexpected response')
          }
        },
        subscription
      )
  }
}
