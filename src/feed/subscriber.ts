import type { ServerResponse } from 'node:http'
import type { TokenLease } from './token-lease.js'

/** How often a catch-up waiting for the client to read looks again, in milliseconds. */
const DRAIN_POLL_MS = 100

/** The counters a subscriber adds to (the change feed's, shown in /metrics). */
export interface FeedCounters {
  /** Change events written to subscribers (a `reset` included). */
  eventsSent: number
  /** Subscribers dropped because they did not take what was sent. */
  dropped: number
}

/**
 * One open `GET /books/changes` stream: the response it writes to, how far it has been sent
 * (`seq`: the sequence number of the last change written), and the lease of its token.
 */
export class FeedSubscriber {
  /** The sequence number of the last change written to this stream. */
  seq = 0
  /** When the stream opened, in milliseconds since the epoch (FEED_MAX_STREAM_AGE counts from it). */
  readonly openedAt = Date.now()
  private ended = false

  /**
   * @param bufferBytes most bytes that may wait unsent in the response before the subscriber is
   *   dropped (FEED_BUFFER_BYTES).
   */
  constructor(
    readonly response: ServerResponse,
    readonly lease: TokenLease,
    private readonly bufferBytes: number,
    private readonly counters: FeedCounters
  ) {
    response.once('close', () => (this.ended = true))
  }

  /** True once the stream ended (by the client, {@link end} or {@link drop}). */
  get closed(): boolean {
    return this.ended || this.response.destroyed
  }

  /** True while more bytes wait unsent than the bound allows half of (catch-up waits then). */
  get congested(): boolean {
    return this.response.writableLength > this.bufferBytes / 2
  }

  /**
   * Writes `text` (or its bytes) holding `events` events. A subscriber with more than its bound of bytes still
   * waiting is dropped instead (nothing more is written: memory stays bounded whatever the
   * client does); it resumes with `Last-Event-ID` when it reconnects.
   *
   * @returns false when nothing was written (closed or dropped).
   */
  send(text: string | Buffer, events = 0): boolean {
    if (this.closed) return false
    if (this.response.writableLength > this.bufferBytes) {
      this.drop()
      return false
    }
    this.response.write(text)
    this.counters.eventsSent += events
    return true
  }

  /** Resolves when the bytes waiting fall under half the bound, or the stream closes. */
  async drained(): Promise<void> {
    const response = this.response
    while (this.congested && !this.closed) {
      await new Promise<void>((resolve) => {
        // 'drain' comes only after a write that returned false: a short timer covers a smaller bound.
        const timer = setTimeout(done, DRAIN_POLL_MS)
        response.once('drain', done)
        response.once('close', done)
        function done() {
          clearTimeout(timer)
          response.off('drain', done)
          response.off('close', done)
          resolve()
        }
      })
    }
  }

  /** Ends the stream cleanly (token expired or revoked, maximum age, shutting down): the client may reconnect. */
  end(): void {
    if (this.closed) return
    this.ended = true
    this.response.end()
  }

  /** Drops a subscriber that does not take what is sent: the connection is closed, unsent bytes discarded. */
  drop(): void {
    if (this.closed) return
    this.ended = true
    this.counters.dropped += 1
    this.response.destroy()
  }
}
