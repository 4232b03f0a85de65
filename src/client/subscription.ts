import type { Book } from '../book/schema.js'
import { EventStreamParser, type StreamEvent } from './event-stream.js'

/** One event of the change feed, as {@link followChanges} reports it (docs/change-feed.md "Change feed"). */
export interface BookChangeEvent {
  /** The change's sequence number (the event's `id:`); for `reset`, the last change when it was sent (0: none). */
  sequence: number
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
   * Told of each break (network failure, the stream ended, 503) before reconnecting, with how
   * long it waits first in milliseconds (1 s or the stream's `retry:`, doubling while breaks
   * follow each other, at most 30 s).
   */
  onReconnect?: (reason: unknown, delayMs: number) => void
  /**
   * Told each time the stream is open: from then on every change committed is delivered (to
   * show a list and keep it current, read the list after the first call).
   */
  onOpen?: () => void
}

/** An answer that reconnecting cannot fix (401, 403, 404, 400): `subscribe` rejects with it. */
export interface FeedRefusal {
  status: number
  response: Response
}

const TYPES = new Set(['created', 'updated', 'deleted', 'reset'])
/** Reconnection delays: the stream's `retry:` (or 1 s), doubling while breaks follow each other, at most 30 s. */
const FIRST_DELAY_MS = 1000
const LONGEST_DELAY_MS = 30_000

/** The change `event` describes, or undefined for an event this client does not know (ignored). */
function changeOf(event: StreamEvent): BookChangeEvent | undefined {
  if (!TYPES.has(event.type)) return undefined
  const numbered = /^[0-9]+$/.test(event.lastEventId)
  if (!numbered && event.type !== 'reset') return undefined
  const data = JSON.parse(event.data) as { id: number | null; book: Book | null }
  return { sequence: numbered ? Number(event.lastEventId) : 0, type: event.type as BookChangeEvent['type'], id: data.id ?? null, book: data.book ?? null }
}

function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms)
    signal?.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true })
  })
}

/**
 * Follows `GET /books/changes` at `url` with `fetch` (docs/change-feed.md "Change feed"): reads the
 * Server-Sent Events, reports each change, and when the stream breaks or ends reconnects with
 * `Last-Event-ID`, so no change is missed or repeated. Resolves when `options.signal` aborts;
 * rejects with `refuse(…)`'s error on an answer that reconnecting cannot fix (401, 403, 400, 404).
 *
 * @param headers the request headers (the bearer token), read again at each connection.
 */
export async function followChanges(
  url: string,
  headers: () => Record<string, string>,
  options: SubscribeOptions,
  fetchImpl: typeof fetch,
  refuse: (refusal: FeedRefusal) => Promise<Error>
): Promise<void> {
  const { signal } = options
  let lastEventId = ''
  let retry = FIRST_DELAY_MS
  let breaks = 0
  while (!signal?.aborted) {
    const query = lastEventId === '' && options.after !== undefined ? `?after=${options.after}` : ''
    const sent: Record<string, string> = { ...headers(), accept: 'text/event-stream' }
    if (lastEventId !== '') sent['last-event-id'] = lastEventId
    let reason: unknown
    let refusal: Error | undefined
    try {
      const response = await fetchImpl(`${url}${query}`, { headers: sent, signal })
      if (response.status !== 200 && response.status !== 503) {
        refusal = await refuse({ status: response.status, response })
      } else if (response.status === 503 || !response.body) {
        reason = new Error(`the service answered ${response.status}`)
        await response.body?.cancel()
      } else {
        const parser = new EventStreamParser()
        parser.lastEventId = lastEventId
        const decoder = new TextDecoder()
        options.onOpen?.()
        for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
          for (const event of parser.push(decoder.decode(chunk, { stream: true }))) {
            const change = changeOf(event)
            breaks = 0
            if (change) options.onChange(change)
          }
          // The stream's opening `id:` (its start point) counts too, before any change arrived.
          lastEventId = parser.lastEventId
          retry = parser.retry ?? retry
        }
        reason = new Error('the stream ended')
      }
    } catch (error) {
      if (signal?.aborted) return
      reason = error
    }
    if (refusal) throw refusal
    if (signal?.aborted) return
    breaks += 1
    const delay = Math.min(LONGEST_DELAY_MS, retry * 2 ** (breaks - 1))
    options.onReconnect?.(reason, delay)
    await pause(delay, signal)
  }
}
