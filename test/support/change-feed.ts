import { request, type IncomingHttpHeaders } from 'node:http'
import { EventStreamParser, type StreamEvent } from '../../src/client/event-stream.js'

/** A `GET /books/changes` stream opened by {@link openFeed}, read as it comes. */
export interface OpenFeed {
  status: number
  headers: IncomingHttpHeaders
  /** The events received so far (comments and `retry:` are not events). */
  events: StreamEvent[]
  /** Everything received so far, as text. */
  text(): string
  /** The body when the answer was not a stream (an envelope). */
  body(): Promise<string>
  /** Resolves once at least `count` events have arrived; rejects after `timeoutMs` (default 5 s). */
  waitFor(count: number, timeoutMs?: number): Promise<StreamEvent[]>
  /** Resolves when the service ends the stream (or the connection closes). */
  ended: Promise<void>
  /** Closes the connection from the client's side. */
  close(): void
}

/**
 * Opens `GET {baseUrl}/books/changes{query}` with `headers` and parses the stream with the web
 * page's own parser (the standard's algorithm). Resolves once the head has arrived.
 */
export function openFeed(baseUrl: string, headers: Record<string, string> = {}, query = ''): Promise<OpenFeed> {
  return new Promise((resolve, reject) => {
    const parser = new EventStreamParser()
    const events: StreamEvent[] = []
    let text = ''
    const waiters = new Set<() => void>()
    const req = request(`${baseUrl}/books/changes${query}`, { headers }, (response) => {
      response.setEncoding('utf8')
      let endedResolve: () => void = () => {}
      const ended = new Promise<void>((done) => (endedResolve = done))
      response.on('data', (chunk: string) => {
        text += chunk
        events.push(...parser.push(chunk))
        for (const waiter of waiters) waiter()
      })
      response.on('end', () => endedResolve())
      response.on('close', () => endedResolve())
      response.on('error', () => endedResolve())
      resolve({
        status: response.statusCode ?? 0,
        headers: response.headers,
        events,
        text: () => text,
        body: async () => {
          await ended
          return text
        },
        waitFor(count, timeoutMs = 5000) {
          return new Promise((done, fail) => {
            const check = () => {
              if (events.length >= count) {
                clearTimeout(timer)
                waiters.delete(check)
                done(events.slice())
              }
            }
            const timer = setTimeout(() => {
              waiters.delete(check)
              fail(new Error(`${events.length} of ${count} events within ${timeoutMs} ms:\n${text.slice(-2000)}`))
            }, timeoutMs)
            waiters.add(check)
            check()
          })
        },
        ended,
        close: () => req.destroy()
      })
    })
    req.on('error', reject)
    req.end()
  })
}

/** The sequence numbers of `events`. */
export function seqsOf(events: StreamEvent[]): number[] {
  return events.map((event) => Number(event.lastEventId))
}
