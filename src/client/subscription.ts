import type { Book } from '../book/schema.js'
import { EventStreamParser, type StreamEvent } from './event-stream.js'

/** One event of the change feed, as {@link followChanges} reports it (docs/change-feed.md "Change feed"). */
export interface BookChangeEvent {
  /** The change's sequence number (the event's `id:`); for `reset`, the last change when it was sent (0: none). */
  seq: number
  /** `reset`: changes were missed that the feed no longer holds; re-read the list. */
  type: 'created' | 'updated' | 'deleted' | 'reset'
  /** The id of the book changed; null for `reset`. */
  id: number | null
  /** The book as GET /book/{id} answers it after the change; null when deleted and for `reset`. */
  book: Book | null
}

/** What `subscribe` of the client needs. */
export interface SubscribeOptions {
  /** Called with each change, in sequence order, each once (also across reconnections). */
  onChange: (change: BookChangeEvent) => void
  /** Start after this sequence number (`?after=`); default: only changes made from now on. */
  after?: number
  /** Stops following; `subscribe` then resolves. */
  signal?: AbortSignal
  /**
   * Told of each break (network failure, the stream ended, a 5xx answer) before reconnecting, with
   * how long it waits first in milliseconds (see {@link reconnectDelay}: 1 s or the stream's
   * `retry:`, doubling while breaks follow each other, at most 30 s, with up to half taken off at
   * random). With `onOpen`, enough to show the feed's state: connecting until the first `onOpen`,
   * live after each `onOpen`, reconnecting after each `onReconnect`, off once the promise settles.
   */
  onReconnect?: (reason: unknown, delayMs: number) => void
  /**
   * Told each time the stream is open: from then on every change committed is delivered (to
   * show a list and keep it current, read the list after the first call).
   */
  onOpen?: () => void
  /**
   * Waits `ms` milliseconds before a reconnection, resolving early when `signal` aborts. Default:
   * a timer; a test passes its own to record the delays without waiting them out.
   */
  wait?: (ms: number, signal: AbortSignal | undefined) => Promise<void>
}

/** An answer that reconnecting cannot fix (4xx, or a 200 that is not the feed): `subscribe` rejects with the error made of it. */
export interface FeedRefusal {
  status: number
  response: Response
}

/** How {@link followChanges} reaches the feed: what `createClient` gives it. */
export interface FeedConnection {
  /** The feed's URL, `…/books/changes`. */
  url: string
  /** The request headers (the bearer token), read again at each connection. */
  headers: () => Record<string, string>
  /** fetch's `cache` mode (a browser page passes `no-store`). */
  cache?: RequestInit['cache']
  fetch: typeof fetch
  /** The error `subscribe` rejects with for an answer reconnecting cannot fix. */
  refuse: (refusal: FeedRefusal) => Promise<Error>
}

const TYPES = new Set(['created', 'updated', 'deleted', 'reset'])
/** Reconnection delays: the stream's `retry:` (or 1 s), doubling while breaks follow each other, at most 30 s. */
const FIRST_DELAY_MS = 1000
const LONGEST_DELAY_MS = 30_000
/**
 * A stream that stayed open this long was healthy (it outlived a heartbeat, sent every 15 s): the
 * break that ends it starts the delays again from the first. Measured by time, not by events, so
 * a quiet feed whose streams end at `FEED_MAX_STREAM_AGE` keeps reconnecting after 1 s.
 */
const HEALTHY_MS = 30_000

/**
 * The wait before reconnecting after the `breaks`-th break in a row: `retry` (the stream's
 * `retry:`, else 1 s) doubled for each earlier break, at most 30 s, then drawn at random between
 * half of it and all of it, so clients cut off together (a restart) do not all come back at once.
 *
 * @returns whole milliseconds.
 */
export function reconnectDelay(retry: number, breaks: number, random: () => number = Math.random): number {
  const base = Math.min(LONGEST_DELAY_MS, retry * 2 ** (breaks - 1))
  return Math.round(base / 2 + random() * (base / 2))
}

/**
 * The change `event` describes, or undefined for an event this client cannot use (ignored): an
 * unknown type, a change without a sequence number, unreadable data or no book id. A `reset`
 * needs neither data nor id.
 */
function changeOf(event: StreamEvent): BookChangeEvent | undefined {
  if (!TYPES.has(event.type)) return undefined
  const type = event.type as BookChangeEvent['type']
  const numbered = /^[0-9]+$/.test(event.lastEventId)
  if (!numbered && type !== 'reset') return undefined
  let data: { id?: unknown; book?: unknown } = {}
  try {
    const parsed: unknown = JSON.parse(event.data)
    if (typeof parsed === 'object' && parsed !== null) data = parsed as typeof data
  } catch {
    if (type !== 'reset') return undefined
  }
  const id = typeof data.id === 'number' ? data.id : null
  if (id === null && type !== 'reset') return undefined
  const book = typeof data.book === 'object' && data.book !== null ? (data.book as Book) : null
  return { seq: numbered ? Number(event.lastEventId) : 0, type, id, book }
}

function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms)
    signal?.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true })
  })
}

/** Whether `response` is the feed's stream (a 200 a proxy or a page server answered with something else is not). */
function isEventStream(response: Response): boolean {
  return response.status === 200 && (response.headers.get('content-type') ?? '').startsWith('text/event-stream')
}

/**
 * Follows `GET /books/changes` with `fetch` (docs/change-feed.md "Change feed"): reads the
 * Server-Sent Events, reports each change, and when the stream breaks or ends reconnects with
 * `Last-Event-ID`, so no change is missed or repeated. Network failures, streams that end and
 * 5xx answers (503 when the feed is full; a proxy's 502 or 504 while the service restarts) are
 * retried after {@link reconnectDelay}. Resolves when `options.signal` aborts; rejects with
 * `connection.refuse(…)`'s error on any other answer (401, 403, 400, 404, or a 200 that is not
 * `text/event-stream`), which reconnecting cannot fix.
 */
export async function followChanges(connection: FeedConnection, options: SubscribeOptions): Promise<void> {
  const { signal } = options
  const wait = options.wait ?? pause
  // Called unbound: a browser's fetch refuses any other `this` than the window ("Illegal invocation").
  const fetchFeed = connection.fetch
  let lastEventId = ''
  let retry = FIRST_DELAY_MS
  let breaks = 0
  while (!signal?.aborted) {
    const query = lastEventId === '' && options.after !== undefined ? `?after=${options.after}` : ''
    const headers: Record<string, string> = { ...connection.headers(), accept: 'text/event-stream' }
    if (lastEventId !== '') headers['last-event-id'] = lastEventId
    let reason: unknown
    let refusal: Error | undefined
    let openedAt: number | undefined
    try {
      const response = await fetchFeed(`${connection.url}${query}`, {
        headers,
        signal,
        ...(connection.cache === undefined ? {} : { cache: connection.cache })
      })
      if (response.status >= 500) {
        reason = new Error(`the service answered ${response.status}`)
        await response.body?.cancel().catch(() => {})
      } else if (!isEventStream(response)) {
        refusal = await connection.refuse({ status: response.status, response })
      } else {
        openedAt = Date.now()
        options.onOpen?.()
        if (response.body) {
          // The reader rather than async iteration of the body: not every browser iterates a ReadableStream.
          const reader = response.body.getReader()
          const parser = new EventStreamParser()
          parser.lastEventId = lastEventId
          const decoder = new TextDecoder()
          try {
            for (let piece = await reader.read(); !piece.done; piece = await reader.read()) {
              for (const event of parser.push(decoder.decode(piece.value, { stream: true }))) {
                const change = changeOf(event)
                if (change) options.onChange(change)
              }
              // The stream's opening `id:` (its start point) counts too, before any change arrived.
              lastEventId = parser.lastEventId
              retry = parser.retry ?? retry
            }
          } finally {
            reader.releaseLock()
          }
        }
        reason = new Error('the stream ended')
      }
    } catch (error) {
      if (signal?.aborted) return
      reason = error
    }
    if (refusal) throw refusal
    if (signal?.aborted) return
    breaks = openedAt !== undefined && Date.now() - openedAt >= HEALTHY_MS ? 1 : breaks + 1
    const delay = reconnectDelay(retry, breaks)
    options.onReconnect?.(reason, delay)
    await wait(delay, signal)
  }
}
