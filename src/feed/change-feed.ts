import type { FastifyBaseLogger } from 'fastify'
import type { BookChange, ChangeLog } from '../storage/contracts/change-log.js'
import { changeEventText, HEARTBEAT_TEXT, seqText, resetEventText } from './event-text.js'
import type { FeedCounters, FeedSubscriber } from './subscriber.js'

/** Most changes the shared reader reads from the log at once. */
const PAGE = 1000

/**
 * Most changes a catch-up reads from the log at once: reading a page and making its events took
 * 12 ms on SQLite on the 2-core machine of docs/reliability.md under a load average of 16 (1,000
 * took 55 ms), so a turn of the event loop with {@link CATCH_UPS_AT_ONCE} pages stays short.
 */
const CATCH_UP_PAGE = 250

/** How often expiry and revocation are checked, and heartbeats considered, in milliseconds. */
const TICK_MS = 1000

/**
 * The shortest time between two reads of the shared reader, in milliseconds: changes committed
 * meanwhile go out together, one write per subscriber for all of them. At 100 writes/s and 10,000
 * subscribers that is 200,000 socket writes a second instead of up to 1,000,000; it adds at most
 * this much to an event's delay.
 */
const GATHER_MS = 50

/**
 * Most catch-ups reading the log at once in one process. A catch-up reads a page, writes it and
 * yields to the event loop before the next, so each turn of the loop runs at most this many pages
 * of {@link CATCH_UP_PAGE} changes whatever the number of subscribers catching up: ordinary requests
 * keep being answered. Further catch-ups wait for a place (they are not refused); one whose
 * client stops reading gives its place up while it waits.
 */
export const CATCH_UPS_AT_ONCE = 4

/** Gives the event loop a turn: I/O and timers due run before the caller goes on. */
const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve))

/** How long the shared reader waits before trying again after the log could not be read, in milliseconds. */
const RETRY_READ_MS = 1000

/** The heartbeat, encoded once for every stream. */
const HEARTBEAT_BYTES = Buffer.from(HEARTBEAT_TEXT)

/** The limits of {@link ChangeFeed} (docs/change-feed.md "Change feed"; the settings FEED_…). */
export interface ChangeFeedLimits {
  /** Most subscribers at once in this process (FEED_MAX_SUBSCRIBERS). */
  maxSubscribers: number
  /** Seconds between two heartbeats of a stream (FEED_HEARTBEAT). */
  heartbeatSeconds: number
  /** Most streams at once for one token subject, in this process (FEED_MAX_STREAMS_PER_SUBJECT). */
  maxPerSubject: number
  /** Seconds after which a stream ends cleanly; the client resumes with `Last-Event-ID` (FEED_MAX_STREAM_AGE). */
  maxAgeSeconds: number
}

/**
 * A place in the feed taken by {@link ChangeFeed.admit} for one stream: it counts against the
 * limits from then on; {@link release} gives it back (once; later calls do nothing).
 */
export interface FeedPlace {
  release(): void
}

/**
 * Where a new subscriber starts: `undefined` "from now" (only changes committed after it
 * subscribed), a sequence number (the changes after it: `Last-Event-ID`, or `?after=`), or
 * `'unknown'` for a `Last-Event-ID` that is no sequence number (answered with `reset`).
 */
export type StartPoint = number | 'unknown' | undefined

/**
 * The change feed of one process (docs/change-feed.md "Change feed"): ONE reader of the change log fans every
 * change out to all subscribers. It wakes on the log's `onChanges`, reads `changesAfter(seq,
 * 1000)`, makes each event's text once and writes it to every subscriber that has joined. A
 * subscriber resuming from an older point first catches up from the log on its own, at its own
 * pace, then joins; joining happens in the same synchronous step that checks it has reached the
 * reader's position, and the reader writes a batch and moves its seq in one synchronous
 * step too, so no change falls between the two and none is sent twice (each subscriber's `seq`).
 *
 * Also: one timer for all streams sends heartbeats and ends streams whose token expired or was
 * revoked or that reached their maximum age; {@link close} ends every stream (shutdown). The
 * limits (docs/change-feed.md "Change feed"): {@link admit} gives a new stream its place, or none.
 */
export class ChangeFeed {
  /** Counters for /metrics. */
  readonly counters: FeedCounters = { eventsSent: 0, dropped: 0 }
  /** Every open stream, catching up or joined (what the limit counts). */
  private readonly streams = new Set<FeedSubscriber>()
  /** Places taken by streams, opening or open (what FEED_MAX_SUBSCRIBERS counts). */
  private held = 0
  /** Places taken per token subject (what FEED_MAX_STREAMS_PER_SUBJECT counts). */
  private readonly heldBySubject = new Map<string, number>()
  /** Catch-ups reading now, at most {@link CATCH_UPS_AT_ONCE}. */
  private catchingUp = 0
  /** Catch-ups waiting for a place, first come first served. */
  private readonly catchUpQueue: Array<() => void> = []
  /** The streams the shared reader writes to. */
  private readonly joined = new Set<FeedSubscriber>()
  /** The sequence number of the last change the shared reader wrote. */
  private seq = 0
  private started: Promise<void> | undefined
  private stopListening: (() => void) | undefined
  private reading = false
  private again = false
  /** When the shared reader last started a read (ms, `performance.now()`); a wake before GATHER_MS waits. */
  private lastRead = Number.NEGATIVE_INFINITY
  private gathering: NodeJS.Timeout | undefined
  private closing = false
  private ticks = 0
  private timer: NodeJS.Timeout | undefined

  /**
   * @param changeLog the change log the shared reader and every start point read (the primary's).
   * @param catchUpLog where a resuming subscriber's catch-up pages are read: read replicas that
   *   hold them, when the database has any (docs/several-instances.md "Read replicas"); default `changeLog`.
   */
  constructor(
    private readonly changeLog: ChangeLog,
    private readonly limits: ChangeFeedLimits,
    private readonly logger: FastifyBaseLogger,
    private readonly catchUpLog: Pick<ChangeLog, 'changesAfter'> = changeLog
  ) {}

  /** The streams open now. */
  get subscribers(): number {
    return this.streams.size
  }

  /** False when the subscriber limit is reached or the feed is closing (answer 503). */
  hasRoom(): boolean {
    return !this.closing && this.held < this.limits.maxSubscribers
  }

  /**
   * Takes a place for a new stream of `subject` (the token's subject; undefined: not counted per
   * subject), in the same synchronous step as the checks, so streams opening together cannot
   * overshoot the limits (docs/change-feed.md "Change feed").
   *
   * @returns the place, or undefined when the feed is closing, FEED_MAX_SUBSCRIBERS places are
   *   taken, or `subject` already holds FEED_MAX_STREAMS_PER_SUBJECT (answer 503).
   */
  admit(subject: string | undefined): FeedPlace | undefined {
    if (!this.hasRoom()) return undefined
    if (subject !== undefined && (this.heldBySubject.get(subject) ?? 0) >= this.limits.maxPerSubject) return undefined
    this.held += 1
    if (subject !== undefined) this.heldBySubject.set(subject, (this.heldBySubject.get(subject) ?? 0) + 1)
    let released = false
    return {
      release: () => {
        if (released) return
        released = true
        this.held -= 1
        if (subject === undefined) return
        const left = this.heldBySubject.get(subject)! - 1
        if (left === 0) this.heldBySubject.delete(subject)
        else this.heldBySubject.set(subject, left)
      }
    }
  }

  /**
   * Adds `subscriber` (its response's head and `retry:` already written) from `start`: a `reset`
   * first when `start` is older than the log holds or newer than its last change, then the
   * changes after `start` from the log, then live ones. Resolves once it has joined the shared
   * stream (or closed meanwhile). The catch-up reads a page at a time with a turn of the event
   * loop between pages, at most {@link CATCH_UPS_AT_ONCE} catch-ups at once; `place` (from
   * {@link admit}) is released when the stream closes.
   */
  async add(subscriber: FeedSubscriber, start: StartPoint, place?: FeedPlace): Promise<void> {
    this.streams.add(subscriber)
    subscriber.response.once('close', () => {
      this.streams.delete(subscriber)
      this.joined.delete(subscriber)
      place?.release()
    })
    await this.start()
    const { trimmedThrough, lastSeq } = await this.changeLog.horizon()
    if (start === undefined) {
      subscriber.seq = lastSeq
    } else if (start === 'unknown' || start < trimmedThrough || start > lastSeq) {
      subscriber.seq = lastSeq
      subscriber.send(resetEventText(lastSeq), 1)
    } else {
      subscriber.seq = start
    }
    subscriber.send(seqText(subscriber.seq), 0)
    if (subscriber.seq < this.seq) await this.catchUp(subscriber)
    else if (!subscriber.closed) this.joined.add(subscriber)
  }

  /**
   * Sends `subscriber` the changes from its `seq` up to the shared reader's `seq`, a page at a
   * time, holding one of the {@link CATCH_UPS_AT_ONCE} places while it reads: between two pages the
   * event loop gets a turn (on SQLite a read is synchronous, and a client that reads as fast as
   * it is written never makes the socket wait), and while the client has not taken what was sent
   * the place goes to another catch-up. Ends joined (in the same synchronous step as the check that
   * its `seq` reached the shared reader's: the reader may move on at any await), or
   * with the stream closed.
   */
  private async catchUp(subscriber: FeedSubscriber): Promise<void> {
    await this.takeCatchUpPlace()
    try {
      while (!subscriber.closed) {
        if (subscriber.seq >= this.seq) {
          this.joined.add(subscriber)
          return
        }
        if (subscriber.congested) {
          this.giveCatchUpPlace()
          try {
            await subscriber.drained()
          } finally {
            await this.takeCatchUpPlace()
          }
          continue
        }
        // Never empty from a replica (it is asked only when it holds a change after `seq`), so an
        // empty page means the log has nothing after `seq`, as on the primary.
        const changes = await this.catchUpLog.changesAfter(subscriber.seq, CATCH_UP_PAGE)
        if (subscriber.closed) return
        if (changes.length === 0) {
          this.joined.add(subscriber)
          return
        }
        subscriber.send(changes.map(changeEventText).join(''), changes.length)
        subscriber.seq = changes.at(-1)!.seq
        await yieldToEventLoop()
      }
    } finally {
      this.giveCatchUpPlace()
    }
  }

  /** Resolves once one of the {@link CATCH_UPS_AT_ONCE} catch-up places is this caller's. */
  private takeCatchUpPlace(): Promise<void> {
    if (this.catchingUp < CATCH_UPS_AT_ONCE) {
      this.catchingUp += 1
      return Promise.resolve()
    }
    // The place is handed over by giveCatchUpPlace: the count stays as it is.
    return new Promise((resolve) => this.catchUpQueue.push(resolve))
  }

  /** Hands a catch-up place to the first waiting catch-up, or frees it. */
  private giveCatchUpPlace(): void {
    const next = this.catchUpQueue.shift()
    if (next) next()
    else this.catchingUp -= 1
  }

  /**
   * The sequence number of the last committed change (0 when the log is empty): where a subscriber "from
   * now" starts.
   *
   * @throws StorageUnavailableError when the log cannot be read.
   */
  async lastSeq(): Promise<number> {
    return (await this.changeLog.horizon()).lastSeq
  }

  /** Ends every stream and stops reading (the service is stopping); new subscribers get 503. */
  close(): void {
    this.closing = true
    this.stopListening?.()
    clearInterval(this.timer)
    clearTimeout(this.gathering)
    for (const subscriber of this.streams) subscriber.end()
  }

  /** Starts the shared reader at the log's last change, once, on the first subscriber. */
  private start(): Promise<void> {
    this.started ??= (async () => {
      this.stopListening = this.changeLog.onChanges(this.wake)
      this.seq = (await this.changeLog.horizon()).lastSeq
      this.timer = setInterval(this.tick, TICK_MS)
      this.timer.unref()
      this.wake()
    })()
    this.started.catch(() => (this.started = undefined))
    return this.started
  }

  private readonly wake = (): void => {
    if (this.closing || this.gathering !== undefined) return
    if (this.reading) {
      this.again = true
      return
    }
    const wait = this.lastRead + GATHER_MS - performance.now()
    if (wait > 0) {
      this.gathering = setTimeout(() => {
        this.gathering = undefined
        this.wake()
      }, wait)
      return
    }
    void this.read()
  }

  private async read(): Promise<void> {
    this.reading = true
    try {
      do {
        this.again = false
        this.lastRead = performance.now()
        const changes = await this.changeLog.changesAfter(this.seq, PAGE)
        if (changes.length > 0) this.deliver(changes)
        if (changes.length === PAGE) {
          this.again = true
          // More are waiting (a burst of writes): other I/O gets a turn between two pages.
          await yieldToEventLoop()
        } else if (this.again) break
      } while (this.again && !this.closing)
    } catch (error) {
      this.logger.warn({ err: error }, 'change feed: cannot read the change log; trying again')
      setTimeout(this.wake, RETRY_READ_MS).unref()
    } finally {
      this.reading = false
    }
    // Woken while reading: read again, once GATHER_MS has passed since this read started.
    if (this.again && !this.closing) {
      this.again = false
      this.wake()
    }
  }

  /** Writes `changes` to every joined subscriber not past them, and moves the reader's `seq`: one synchronous step. */
  private deliver(changes: BookChange[]): void {
    const texts = changes.map(changeEventText)
    // Encoded once: every socket is handed the same bytes (a string would be encoded per socket).
    const whole = Buffer.from(texts.join(''))
    const first = changes[0]!.seq
    const last = changes.at(-1)!.seq
    for (const subscriber of this.joined) {
      if (subscriber.seq >= last) continue
      if (subscriber.seq < first) {
        subscriber.send(whole, changes.length)
      } else {
        const rest = texts.filter((_, index) => changes[index]!.seq > subscriber.seq)
        subscriber.send(rest.join(''), rest.length)
      }
      subscriber.seq = last
    }
    this.seq = last
  }

  /**
   * Every second: streams whose token expired or was revoked, or that are FEED_MAX_STREAM_AGE old,
   * end; every FEED_HEARTBEAT seconds, a heartbeat.
   */
  private readonly tick = (): void => {
    this.ticks += 1
    // A read every second whatever the wake-ups say: a lost notification (a listening connection
    // that dropped, a commit before LISTEN took effect) delays a change by a second, never more.
    if (this.streams.size > 0) this.wake()
    const now = Date.now()
    const heartbeat = this.ticks % Math.max(1, Math.round((this.limits.heartbeatSeconds * 1000) / TICK_MS)) === 0
    const maxAgeMs = this.limits.maxAgeSeconds * 1000
    for (const subscriber of this.streams) {
      const { expiresAt, isCurrent } = subscriber.lease
      if ((expiresAt !== undefined && expiresAt <= now) || now - subscriber.openedAt >= maxAgeMs) {
        subscriber.end()
        continue
      }
      if (isCurrent) {
        const current = isCurrent()
        if (current === false) subscriber.end()
        else if (current !== true) current.then((yes) => yes || subscriber.end(), () => {})
        if (current === false) continue
      }
      if (heartbeat && !subscriber.congested) subscriber.send(HEARTBEAT_BYTES)
    }
  }
}
