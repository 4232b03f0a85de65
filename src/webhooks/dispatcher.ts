import { randomUUID } from 'node:crypto'
import { hostname } from 'node:os'
import type { FastifyBaseLogger } from 'fastify'
import type { BookChange, ChangeLog } from '../storage/contracts/change-log.js'
import type { DeliveryOutcome, DeliveryRecord, EndpointSeq, WebhookEndpoint, WebhookStore } from '../storage/contracts/webhook-store.js'
import { EVENT_TYPES, messageBody, webhookIdOf } from './message.js'
import { SenderThread, type SendingRun } from './sender-client.js'
import type { SentAttempt } from './sender-thread.js'

/** How the dispatcher runs (settings `WEBHOOK_*`). */
export interface DispatcherOptions {
  /** The delays before the second, third, … attempt, in ms (`WEBHOOK_RETRY_SCHEDULE`). */
  retryDelaysMs: readonly number[]
  /** One attempt's limit, in ms (`WEBHOOK_TIMEOUT`). */
  timeoutMs: number
  /** `WEBHOOK_ALLOW_PRIVATE`. */
  allowPrivate: boolean
  log: FastifyBaseLogger
  /** How long the lease lasts without renewal, in ms (renewed every third of it). */
  leaseTtlMs?: number
}

/** Deliveries counted by outcome since start, in this process. */
export interface DeliveryCounters {
  /** Attempts answered 2xx. */
  succeeded: number
  /** Attempts that failed and will be retried. */
  failed: number
  /** Deliveries given up (410, or the schedule run through): their endpoint is disabled. */
  givenUp: number
}

/** An endpoint's lag, for /metrics. */
export interface EndpointLag {
  readonly endpointId: string
  /** Changes in the log after the endpoint's `seq`. */
  readonly changes: number
  /** Seconds since the oldest change not yet delivered was committed (0 when none waits). */
  readonly seconds: number
}

const LEASE_TTL_MS = 10_000
/** How often the lease holder reads the endpoints (admin changes of other processes). */
const SYNC_INTERVAL_MS = 1000
/** A safety poll of the change log, besides its wake-ups. */
const IDLE_POLL_MS = 1000
/** How long successes wait to be recorded together (their `seq` writes grouped). */
const RECORD_DELAY_MS = 200
const READ_BATCH = 100

/** A wait that ends at `ms` or when `signal` aborts. */
function pause(ms: number, signal: AbortSignal, wake?: (resolve: () => void) => void): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve()
    const done = () => {
      clearTimeout(timer)
      signal.removeEventListener('abort', done)
      resolve()
    }
    const timer = setTimeout(done, Math.max(0, ms))
    signal.addEventListener('abort', done, { once: true })
    wake?.(done)
  })
}

/**
 * Sends every change of the change log to every enabled webhook endpoint (docs/webhooks.md;
 * docs/contract.md "Webhooks"). Each process runs one; the one holding the lease in the database
 * (`webhook_dispatcher_lease`) sends, so each change goes out once per endpoint however many
 * workers and instances run; another takes over within the lease's time when its holder dies.
 *
 * The holder runs one loop per endpoint (a slow or dead endpoint delays only itself): each sends
 * the changes after the endpoint's `seq` in order, change n+1 only once n succeeded or was
 * given up, retrying a failure on the schedule. Successes are recorded in groups a few ms later,
 * so after a crash the last few may go again, with the same `webhook-id`; nothing is skipped.
 */
export class WebhookDispatcher {
  readonly counters: DeliveryCounters = { succeeded: 0, failed: 0, givenUp: 0 }
  private readonly holder = `${hostname()}:${process.pid}:${randomUUID()}`
  private readonly loops = new Map<string, EndpointLoop>()
  private leaseTimer: NodeJS.Timeout | undefined
  private syncTimer: NodeJS.Timeout | undefined
  private leaseUntil = 0
  private closed = false
  private stopListening: (() => void) | undefined
  private readonly recorder: OutcomeRecorder
  private readonly reader: SharedChangeReader
  /** Where the attempts are sent from: off the event loop that answers requests. */
  private readonly sender = new SenderThread()
  private head = 0
  private syncing: Promise<void> | undefined

  constructor(
    private readonly webhooks: WebhookStore,
    private readonly changes: ChangeLog,
    private readonly options: DispatcherOptions
  ) {
    this.recorder = new OutcomeRecorder(webhooks, options.log)
    this.reader = new SharedChangeReader(changes)
  }

  /** Starts taking the lease (at once, then every third of its time). */
  start(): void {
    const ttl = this.options.leaseTtlMs ?? LEASE_TTL_MS
    const tick = () => void this.renew(ttl)
    this.leaseTimer = setInterval(tick, ttl / 3).unref()
    tick()
  }

  /** True while this process holds the lease. */
  get leading(): boolean {
    return this.leaseUntil > Date.now()
  }

  /** Reads the endpoints again now (an admin change made in this process). */
  refresh(): void {
    if (this.leading) void this.sync()
  }

  /** Every enabled endpoint's lag (this process's view; empty unless it holds the lease). */
  lags(): EndpointLag[] {
    return [...this.loops.values()].map((loop) => loop.lag(this.head))
  }

  /** Stops every loop (attempts in flight are cut), records what succeeded, gives the lease up. */
  async close(): Promise<void> {
    this.closed = true
    clearInterval(this.leaseTimer)
    clearInterval(this.syncTimer)
    this.stopListening?.()
    // A reading of the endpoints in progress ends first, so it cannot start a loop after these stop.
    await this.syncing
    await Promise.all([...this.loops.values()].map((loop) => loop.stop()))
    this.loops.clear()
    await this.sender.close()
    await this.recorder.flush()
    if (this.leaseUntil > 0) await this.webhooks.releaseLease(this.holder).catch(() => {})
  }

  private async renew(ttl: number): Promise<void> {
    if (this.closed) return
    const now = Date.now()
    let held = false
    try {
      held = await this.webhooks.takeLease(this.holder, now, ttl)
    } catch (error) {
      this.options.log.warn({ err: error }, 'webhooks: cannot renew the dispatcher lease')
      held = this.leaseUntil > Date.now() + ttl / 3
      if (held) return
    }
    if (this.closed) return
    if (held) {
      const starting = this.leaseUntil <= Date.now()
      this.leaseUntil = now + ttl
      if (starting) this.lead()
    } else if (this.leaseUntil > 0) {
      this.leaseUntil = 0
      this.follow()
    }
  }

  private lead(): void {
    this.options.log.info('webhooks: this process sends the deliveries (dispatcher lease taken)')
    this.stopListening = this.changes.onChanges(() => {
      for (const loop of this.loops.values()) loop.wake()
    })
    this.syncTimer = setInterval(() => void this.sync(), SYNC_INTERVAL_MS).unref()
    void this.sync()
  }

  private follow(): void {
    this.options.log.info('webhooks: dispatcher lease lost; another process sends the deliveries')
    clearInterval(this.syncTimer)
    this.stopListening?.()
    for (const loop of this.loops.values()) void loop.stop()
    this.loops.clear()
  }

  /**
   * Starts a loop for each enabled endpoint, restarts those replayed, gives those otherwise edited
   * their new settings, stops the others.
   */
  private sync(): Promise<void> {
    this.syncing ??= (async () => {
      try {
        const [endpoints, horizon] = await Promise.all([this.webhooks.list(), this.changes.horizon()])
        this.head = horizon.lastSeq
        if (!this.leading || this.closed) return
        const enabled = new Map(endpoints.filter((endpoint) => endpoint.enabled).map((endpoint) => [endpoint.id, endpoint]))
        for (const [id, loop] of this.loops) {
          const current = enabled.get(id)
          if (current === undefined || current.replays !== loop.endpoint.replays || loop.ended) {
            // Disabled, removed or replayed: a replay starts again from its `seq`. A loop that
            // disabled its endpoint itself (410, schedule run through) has ended: when an admin
            // enabled it again before this reading, a new loop starts from the recorded `seq`.
            this.loops.delete(id)
            await loop.stop()
          } else if (current.revision !== loop.endpoint.revision) {
            // Edited or rotated: the loop goes on from where it is with the new settings (its last
            // successes may not be recorded yet, and an attempt in flight finishes), so nothing is
            // sent twice.
            loop.edit(current)
          }
        }
        for (const endpoint of enabled.values()) {
          if (!this.leading || this.closed) return
          if (this.loops.has(endpoint.id)) continue
          const loop = new EndpointLoop(endpoint, this.webhooks, this.reader, this.recorder, this.sender, this.options, this.counters)
          this.loops.set(endpoint.id, loop)
          loop.start()
        }
      } catch (error) {
        this.options.log.warn({ err: error }, 'webhooks: cannot read the endpoints')
      } finally {
        this.syncing = undefined
      }
    })()
    return this.syncing
  }
}

/**
 * The change log as the endpoint loops read it: the last few batches read are kept, so loops at
 * nearby endpoints share one read instead of one each. A batch read after `after` holds every
 * change committed in (`after`, its last number] (the log never skips one, and a committed change
 * never changes), so any later `after` inside that range is answered from it.
 */
class SharedChangeReader {
  private batches: { after: number; changes: BookChange[] }[] = []

  constructor(private readonly changes: ChangeLog) {}

  async changesAfter(after: number, limit: number): Promise<BookChange[]> {
    for (const batch of this.batches) {
      const last = batch.changes.at(-1)
      if (last !== undefined && batch.after <= after && after < last.seq) {
        return batch.changes.filter((change) => change.seq > after).slice(0, limit)
      }
    }
    const changes = await this.changes.changesAfter(after, limit)
    if (changes.length > 0) this.batches = [{ after, changes }, ...this.batches.slice(0, 7)]
    return changes
  }
}

/** Successes waiting to be recorded, and the endpoints' new `seq`s, written together. */
class OutcomeRecorder {
  private outcomes: DeliveryOutcome[] = []
  private seqs = new Map<string, EndpointSeq>()
  private timer: NodeJS.Timeout | undefined
  private writing: Promise<void> = Promise.resolve()

  constructor(
    private readonly webhooks: WebhookStore,
    private readonly log: FastifyBaseLogger
  ) {}

  /** Records `outcome` (when given) and moves the endpoint's `seq` to `seq`, soon. */
  add(outcome: DeliveryOutcome | undefined, endpoint: WebhookEndpoint, seq: number): void {
    if (outcome) this.outcomes.push(outcome)
    this.seqs.set(endpoint.id, { id: endpoint.id, replays: endpoint.replays, seq })
    this.timer ??= setTimeout(() => void this.flush(), RECORD_DELAY_MS)
  }

  /** Writes what waits (one transaction), after any write in progress. */
  flush(): Promise<void> {
    clearTimeout(this.timer)
    this.timer = undefined
    const outcomes = this.outcomes
    const seqs = [...this.seqs.values()]
    this.outcomes = []
    this.seqs = new Map()
    this.writing = this.writing.then(async () => {
      if (outcomes.length === 0 && seqs.length === 0) return
      try {
        await this.webhooks.record(outcomes, seqs)
      } catch (error) {
        // Not recorded: after a restart these changes go again (same webhook-id), never skipped.
        this.log.warn({ err: error }, 'webhooks: cannot record delivered changes')
      }
    })
    return this.writing
  }
}

/**
 * The changes sent to one endpoint, one at a time, in order: the changes read together go to the
 * sender thread as one run (sender-thread.ts), which stops at the first failure; that change is
 * then retried on the schedule here before the next is sent.
 */
class EndpointLoop {
  private readonly controller = new AbortController()
  /** True once the loop has returned: stopped, or its endpoint disabled by a delivery given up. */
  ended = false
  /** The run the sender thread is sending, if any. */
  private sending: SendingRun | undefined
  private seq: number
  private wakeUp: (() => void) | undefined
  private running: Promise<void> = Promise.resolve()
  /** The commit time of the change being delivered (ms), for the lag. */
  private waitingSince: number | undefined

  constructor(
    /** The endpoint's settings, replaced in place when an admin edits or rotates it (not its `seq`). */
    public endpoint: WebhookEndpoint,
    private readonly webhooks: WebhookStore,
    private readonly changes: Pick<ChangeLog, 'changesAfter'>,
    private readonly recorder: OutcomeRecorder,
    private readonly sender: SenderThread,
    private readonly options: DispatcherOptions,
    private readonly counters: DeliveryCounters
  ) {
    this.seq = endpoint.seq
  }

  start(): void {
    this.running = this.run().finally(() => (this.ended = true))
  }

  /**
   * Gives the loop the endpoint's new settings (edited or rotated): the run in flight ends after
   * its attempt in flight, and the next run uses them.
   */
  edit(endpoint: WebhookEndpoint): void {
    this.endpoint = endpoint
    this.sending?.finish()
  }

  wake(): void {
    this.wakeUp?.()
  }

  lag(head: number): EndpointLag {
    return {
      endpointId: this.endpoint.id,
      changes: Math.max(0, head - this.seq),
      seconds: this.waitingSince === undefined ? 0 : Math.max(0, (Date.now() - this.waitingSince) / 1000)
    }
  }

  async stop(): Promise<void> {
    this.controller.abort()
    await this.running
    this.sender.release(this.endpoint.id)
  }

  private get stopped(): boolean {
    return this.controller.signal.aborted
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      try {
        const pending = await this.webhooks.pending(this.endpoint.id, this.seq)
        if (pending !== undefined) {
          const [change] = await this.changes.changesAfter(pending.seq - 1, 1)
          if (change?.seq === pending.seq) {
            if ((await this.deliver(change, pending)) !== 'done') return
          } else {
            // Retention removed the change meanwhile: nothing left to send for it.
            this.recorder.add({ ...pending, status: 'failed', error: 'the change is no longer in the change log', at: Date.now(), nextAttemptAt: null }, this.endpoint, pending.seq)
            this.seq = pending.seq
          }
        }
        for (;;) {
          if (this.stopped) return
          const batch = await this.changes.changesAfter(this.seq, READ_BATCH)
          if (batch.length === 0) {
            this.waitingSince = undefined
            await pause(IDLE_POLL_MS, this.controller.signal, (resolve) => (this.wakeUp = resolve))
            continue
          }
          const wanted = new Set(batch.filter((change) => this.endpoint.events.includes(change.operation)))
          const first = batch.find((change) => wanted.has(change))
          this.waitingSince = first === undefined ? undefined : Date.parse(first.changedAt)
          const attempts = wanted.size > 0 ? await this.sendRun([...wanted]) : []
          let sent = 0
          for (const change of batch) {
            if (!wanted.has(change)) {
              this.seq = change.seq
              this.recorder.add(undefined, this.endpoint, change.seq)
              continue
            }
            const attempt = attempts[sent++]
            // The run ended early (the settings changed): the rest is read and sent again.
            if (attempt === undefined) break
            if (attempt.ok) {
              this.succeeded(change, attempt, 1)
              continue
            }
            if (this.stopped) return
            if ((await this.deliver(change, undefined, attempt)) !== 'done') return
            break
          }
        }
      } catch (error) {
        this.options.log.warn({ err: error, webhook: this.endpoint.id }, 'webhooks: delivery loop failed; trying again')
        await pause(IDLE_POLL_MS, this.controller.signal)
      }
    }
  }

  /** Sends `changes` (in order) as one run on the sender thread; its attempts, up to the first failure. */
  private async sendRun(changes: readonly BookChange[]): Promise<readonly SentAttempt[]> {
    const { id, url } = this.endpoint
    const messages = changes.map((change) => ({ webhookId: webhookIdOf(id, change.seq), body: messageBody(change) }))
    const run = this.sender.send(
      { endpointId: id, url, secrets: this.secrets(), timeoutMs: this.options.timeoutMs, allowPrivate: this.options.allowPrivate, messages },
      this.controller.signal
    )
    this.sending = run
    try {
      return await run.attempts
    } finally {
      this.sending = undefined
    }
  }

  /** Counts and records a change's successful `attempt` (its `number`th), and moves past it. */
  private succeeded(change: BookChange, attempt: SentAttempt, number: number, rowId?: number): void {
    this.counters.succeeded++
    const webhookId = webhookIdOf(this.endpoint.id, change.seq)
    this.recorder.add(
      { endpointId: this.endpoint.id, seq: change.seq, event: EVENT_TYPES[change.operation], webhookId, attempt: number, httpStatus: attempt.httpStatus, error: null, at: attempt.at, id: rowId, status: 'succeeded', nextAttemptAt: null },
      this.endpoint,
      change.seq
    )
    this.seq = change.seq
  }

  /**
   * Every attempt of one change until it succeeds, is given up (the endpoint disabled) or the loop
   * stops; `resumed` is its pending delivery after a restart, `failed` the first attempt when a
   * run already sent it.
   */
  private async deliver(change: BookChange, resumed?: DeliveryRecord, failed?: SentAttempt): Promise<'done' | 'disabled' | 'stopped'> {
    const webhookId = webhookIdOf(this.endpoint.id, change.seq)
    const event = EVENT_TYPES[change.operation]
    let rowId = resumed?.id
    let attempt = resumed?.attempt ?? 0
    let dueAt = resumed?.nextAttemptAt ?? Date.now()
    this.waitingSince = Date.parse(change.changedAt)
    for (;;) {
      let outcome = failed
      failed = undefined
      if (outcome === undefined) {
        // A first attempt is due at once: no timer, so a busy endpoint's next change is not held a turn of the event loop.
        if (dueAt > Date.now()) await pause(dueAt - Date.now(), this.controller.signal)
        if (this.stopped) return 'stopped'
        ;[outcome] = await this.sendRun([change])
        if (outcome === undefined) continue // ended before it started (the settings changed): sent again with the new ones
      }
      attempt++
      if (this.stopped && !outcome.ok) return 'stopped'
      const base = { endpointId: this.endpoint.id, seq: change.seq, event, webhookId, attempt, httpStatus: outcome.httpStatus, error: outcome.error, at: outcome.at }
      if (outcome.ok) {
        this.succeeded(change, outcome, attempt, rowId)
        return 'done'
      }
      const gone = outcome.httpStatus === 410
      if (gone || attempt > this.options.retryDelaysMs.length) {
        this.counters.givenUp++
        const reason = gone
          ? `the endpoint answered 410 Gone to ${webhookId}`
          : `the retry schedule ran out: ${attempt} attempts of ${webhookId} failed (last: ${outcome.error})`
        await this.recorder.flush()
        await this.webhooks.record([{ ...base, id: rowId, status: 'failed', nextAttemptAt: null }], [
          { id: this.endpoint.id, replays: this.endpoint.replays, seq: change.seq }
        ])
        await this.webhooks.disable(this.endpoint.id, this.endpoint.revision, reason)
        this.options.log.warn({ webhook: this.endpoint.id, reason }, 'webhooks: endpoint disabled')
        this.seq = change.seq
        return 'disabled'
      }
      this.counters.failed++
      const delay = Math.max(this.options.retryDelaysMs[attempt - 1]!, outcome.retryAfterMs ?? 0)
      dueAt = Date.now() + Math.min(delay, 86_400_000)
      ;[rowId] = await this.webhooks.record([{ ...base, id: rowId, status: 'pending', nextAttemptAt: dueAt }], [])
    }
  }

  /** The secrets that sign now: the current one, and the previous one during its overlap. */
  private secrets(): string[] {
    const { secret, previousSecret, previousSecretUntil } = this.endpoint
    return previousSecret !== null && (previousSecretUntil ?? 0) > Date.now() ? [secret, previousSecret] : [secret]
  }
}
