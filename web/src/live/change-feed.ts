import type { Book } from '../../../src/client/index.js'
import { EventStreamParser, type StreamEvent } from '../../../src/client/event-stream.js'

/** Where the change feed is (`docs/contract.md` "Other representations"). */
export const CHANGE_FEED_PATH = '/books/changes'

/** One change of the feed: `reset` means "re-read the list" (the feed no longer holds what was missed). */
export interface BookChange {
  /** The change's sequence number (the event's `id:`). */
  sequence: string
  type: 'created' | 'updated' | 'deleted' | 'reset'
  /** The book's id (absent on some `reset` events). */
  id?: number
  /** The book after the change; null when deleted. */
  book: Book | null
}

/**
 * The feed's state, for the person: `connecting` (first try), `live`, `reconnecting` (after a
 * break, with a growing delay), `off` (the service has no feed, or it is not for this token).
 */
export type FeedState = 'connecting' | 'live' | 'reconnecting' | 'off'

/** What {@link openChangeFeed} needs. */
export interface ChangeFeedOptions {
  token: string
  onChange: (change: BookChange) => void
  onState: (state: FeedState) => void
  /** A 401: the token expired or was revoked (the session ends, as on any other call). */
  onUnauthorized: () => void
  /** The fetch to use (tests pass their own); default the global one. */
  fetch?: typeof fetch
  /** Waits `ms` milliseconds, or less when `signal` aborts (tests pass their own); default a timer. */
  wait?: (ms: number, signal: AbortSignal) => Promise<void>
}

const TYPES = new Set(['created', 'updated', 'deleted', 'reset'])
/** Reconnection delays: from 1 s (or the stream's `retry:`), doubling, at most 30 s, with jitter. */
const FIRST_DELAY_MS = 1000
const LONGEST_DELAY_MS = 30_000
/** A stream that stayed open this long was healthy: the next break starts the delays again. */
const HEALTHY_MS = 30_000

/** The change an event of the feed describes, or undefined for events the page does not know (ignored). */
export function changeOf(event: StreamEvent): BookChange | undefined {
  if (!TYPES.has(event.type)) return undefined
  const type = event.type as BookChange['type']
  let data: { id?: unknown; book?: unknown } = {}
  try {
    const parsed: unknown = JSON.parse(event.data)
    if (typeof parsed === 'object' && parsed !== null) data = parsed as typeof data
  } catch {
    if (type !== 'reset') return undefined
  }
  const id = typeof data.id === 'number' ? data.id : undefined
  if (id === undefined && type !== 'reset') return undefined
  const book = typeof data.book === 'object' && data.book !== null ? (data.book as Book) : null
  return { sequence: event.lastEventId, type, id, book }
}

function timer(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const handle = setTimeout(resolve, ms)
    signal.addEventListener('abort', () => (clearTimeout(handle), resolve()), { once: true })
  })
}

/**
 * Follows `GET /books/changes` (Server-Sent Events read with `fetch`, since an `EventSource`
 * cannot send the `Authorization` header) and reports each change. When the stream ends or
 * breaks it reconnects, sending `Last-Event-ID` so no change is missed, after a delay that grows
 * from 1 s to 30 s. A 404 (a service without the feed) or 403 turns it off quietly, with no
 * retry; a 401 ends the session; a 503 or a network failure is retried like a break.
 *
 * @returns `close()`, which stops it for good.
 */
export function openChangeFeed(options: ChangeFeedOptions): { close(): void } {
  const controller = new AbortController()
  const { signal } = controller
  const fetchFeed = options.fetch ?? fetch
  const wait = options.wait ?? timer
  let lastEventId = ''
  let retry: number | undefined

  async function follow(): Promise<void> {
    let failures = 0
    options.onState('connecting')
    while (!signal.aborted) {
      const opened = Date.now()
      const headers: Record<string, string> = { accept: 'text/event-stream', authorization: `Bearer ${options.token}` }
      if (lastEventId) headers['last-event-id'] = lastEventId
      try {
        const response = await fetchFeed(CHANGE_FEED_PATH, { headers, signal, cache: 'no-store' })
        if (response.status === 401) {
          options.onState('off')
          options.onUnauthorized()
          return
        }
        const streams = response.ok && (response.headers.get('content-type') ?? '').startsWith('text/event-stream')
        if (response.status === 404 || response.status === 403 || (response.ok && !streams)) {
          await response.body?.cancel().catch(() => {})
          options.onState('off')
          return
        }
        if (streams && response.body) {
          options.onState('live')
          await read(response.body)
        } else {
          await response.body?.cancel().catch(() => {})
        }
      } catch {
        // A network failure or a broken stream: retried below, like a stream that ended.
      }
      if (signal.aborted) return
      failures = Date.now() - opened > HEALTHY_MS ? 1 : failures + 1
      options.onState('reconnecting')
      const base = Math.min(LONGEST_DELAY_MS, (retry ?? FIRST_DELAY_MS) * 2 ** (failures - 1))
      await wait(base / 2 + Math.random() * (base / 2), signal)
    }
  }

  async function read(body: ReadableStream<Uint8Array>): Promise<void> {
    const parser = new EventStreamParser()
    parser.lastEventId = lastEventId
    const reader = body.getReader()
    const decoder = new TextDecoder()
    try {
      for (;;) {
        const { value, done } = await reader.read()
        if (done) return
        for (const event of parser.push(decoder.decode(value, { stream: true }))) {
          lastEventId = event.lastEventId
          const change = changeOf(event)
          if (change) options.onChange(change)
        }
        retry = parser.retry ?? retry
      }
    } finally {
      lastEventId = parser.lastEventId
      reader.releaseLock()
    }
  }

  void follow()
  return { close: () => controller.abort() }
}
