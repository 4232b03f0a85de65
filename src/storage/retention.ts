import type { BookStore } from './contracts/book-store.js'
import type { Database } from './contracts/database.js'
import type { LoginAttempts } from './contracts/login-attempts.js'
import type { WebhookStore } from './contracts/webhook-store.js'
import { IDEMPOTENCY_TTL_MS } from './contracts/idempotency.js'

// What the database keeps and how often each process trims the rest, in one place: the change log
// (below; the stores run the steps, SQLite's on its writer thread between two group commits), the
// `Idempotency-Key` answers (kept IDEMPOTENCY_TTL_MS, trimmed hourly) and the login counters
// (auth/login-limits.ts; an ended window counts as 0 already, and its rows are removed once a
// window, whether or not anyone logs in meanwhile), and the webhook delivery log (finished entries
// older than WEBHOOK_DELIVERY_MAX_AGE, every 10 minutes).

/**
 * How long the change log keeps its rows (docs/change-feed.md "Change log"): `CHANGE_LOG_MAX_AGE` and
 * `CHANGE_LOG_MAX_ROWS`.
 */
export interface ChangeLogRetention {
  /** Rows committed longer ago than this are removed, in seconds. */
  maxAgeSeconds: number
  /** Rows beyond this many (the oldest first) are removed; 0: no limit by count. */
  maxRows: number
}

/** Most rows one retention step removes: each step is one short transaction, so writes never wait long. */
export const TRIM_BATCH = 1000

/** How often each process checks whether the log has rows to trim, in milliseconds. */
export const TRIM_INTERVAL_MS = 10_000

/**
 * The highest sequence number one retention step may remove, given the oldest rows of the log
 * (ascending, at most {@link TRIM_BATCH}): the end of their leading run that is older than the
 * age limit or beyond the row limit. A row kept stops the run, so the log always keeps a
 * contiguous range (`horizon().trimmedThrough + 1` … `lastSeq`).
 *
 * @param oldest the oldest rows: their seq and commit time (ISO 8601 UTC).
 * @param lastSeq the highest sequence number committed.
 * @param now the current time, in ms since the epoch.
 * @returns that sequence number, or 0 when nothing is to be removed.
 */
export function trimThrough(
  oldest: ReadonlyArray<{ seq: number; changed_at: string }>,
  lastSeq: number,
  now: number,
  retention: ChangeLogRetention
): number {
  const ageLimit = new Date(now - retention.maxAgeSeconds * 1000).toISOString()
  const rowLimit = retention.maxRows === 0 ? 0 : lastSeq - retention.maxRows
  let through = 0
  for (const row of oldest) {
    const seq = Number(row.seq)
    if (seq > rowLimit && row.changed_at >= ageLimit) break
    through = seq
  }
  return through
}

/**
 * The retention when none is configured: the defaults of `CHANGE_LOG_MAX_AGE` (366 days, so a
 * book's history reaches back at least a year: README "History and restore") and
 * `CHANGE_LOG_MAX_ROWS` (0, no limit by count: any fixed count would cut the year short for a busy
 * enough collection).
 */
export const DEFAULT_RETENTION: ChangeLogRetention = { maxAgeSeconds: 31_622_400, maxRows: 0 }

/** What a store is opened with for its change log (both engines). */
export interface ChangeLogOptions {
  /** How long the change log keeps rows (default {@link DEFAULT_RETENTION}). */
  retention?: ChangeLogRetention
  /** How often retention runs, in ms (default {@link TRIM_INTERVAL_MS}). */
  trimIntervalMs?: number
}

/** How often each process removes expired `Idempotency-Key` answers, in milliseconds (they are never replayed once expired, removed or not). */
export const IDEMPOTENCY_TRIM_INTERVAL_MS = 60 * 60 * 1000

/** Where the trims report (a pino logger, such as Fastify's). */
export interface TrimLogger {
  info(fields: object, message: string): void
  warn(fields: object, message: string): void
}

/** Runs `trim` now and then every `intervalMs` ms in the background (the timer keeps no process alive); returns its stop. */
function every(intervalMs: number, trim: () => void): () => void {
  trim()
  const trimTimer = setInterval(trim, intervalMs).unref()
  return () => clearInterval(trimTimer)
}

/**
 * Removes the `Idempotency-Key` answers older than IDEMPOTENCY_TTL_MS (docs/api.md "Retries and
 * Idempotency-Key") from `books` now and then every {@link IDEMPOTENCY_TRIM_INTERVAL_MS}, in the
 * background: a failure is logged and tried again at the next round.
 *
 * @returns stops the trim.
 */
export function trimIdempotencyKeysHourly(books: Pick<BookStore, 'trimIdempotencyKeys'>, logger: TrimLogger): () => void {
  return every(IDEMPOTENCY_TRIM_INTERVAL_MS, () => {
    books.trimIdempotencyKeys(new Date(Date.now() - IDEMPOTENCY_TTL_MS).toISOString()).then(
      (removed) => removed > 0 && logger.info({ removed }, 'expired idempotency keys removed'),
      (error: unknown) => logger.warn({ err: error }, 'removing expired idempotency keys failed; tried again in an hour')
    )
  })
}

/**
 * Removes the login counters whose window ended (docs/accounts.md "Login limits": they no longer
 * count) from `attempts` now and then every `windowMs`, in the background, so the counters of
 * addresses and accounts that stopped trying do not pile up: a failure is logged and tried again
 * at the next round.
 *
 * @param windowMs the length of a counter's window, in ms (`LOGIN_WINDOW_MS`).
 * @returns stops the trim.
 */
export function trimLoginCounters(attempts: Pick<LoginAttempts, 'forgetBefore'>, windowMs: number, logger: TrimLogger): () => void {
  return every(windowMs, () => {
    attempts.forgetBefore(Date.now() - windowMs).catch((error: unknown) => logger.warn({ err: error }, 'removing ended login counters failed; tried again at the next round'))
  })
}

/** How often each process trims the webhook delivery log, in milliseconds. */
export const DELIVERY_TRIM_INTERVAL_MS = 10 * 60 * 1000

/** The default of `WEBHOOK_DELIVERY_MAX_AGE`: 30 days, in seconds. */
export const DEFAULT_DELIVERY_MAX_AGE_SECONDS = 2_592_000

/**
 * Removes the finished deliveries (succeeded or failed) whose last attempt is older than
 * `maxAgeSeconds` from the delivery log (docs/webhooks.md "Delivery log"), {@link TRIM_BATCH}
 * at a time, each batch one short statement through the index on `at`, until none is left.
 * Pending deliveries are the dispatcher's and stay.
 *
 * @param now the current time, in ms since the epoch.
 * @param stopped asked before each batch: once it says true, no further batch starts (the
 *   process is closing its database).
 * @returns how many were removed.
 */
export async function trimDeliveries(
  webhooks: Pick<WebhookStore, 'trim'>,
  maxAgeSeconds: number,
  now = Date.now(),
  stopped: () => boolean = () => false
): Promise<number> {
  const before = now - maxAgeSeconds * 1000
  for (let total = 0; ; ) {
    if (stopped()) return total
    const removed = await webhooks.trim(before, TRIM_BATCH)
    total += removed
    if (removed < TRIM_BATCH) return total
  }
}

/**
 * Runs {@link trimDeliveries} now and then every {@link DELIVERY_TRIM_INTERVAL_MS}, in the
 * background, one run at a time: a failure is logged and tried again at the next round.
 *
 * @returns stops the trim.
 */
export function trimDeliveryLog(webhooks: Pick<WebhookStore, 'trim'>, maxAgeSeconds: number, logger: TrimLogger): () => void {
  let running = false
  let stopped = false
  const stop = every(DELIVERY_TRIM_INTERVAL_MS, () => {
    if (running) return
    running = true
    trimDeliveries(webhooks, maxAgeSeconds, Date.now(), () => stopped)
      .then(
        (removed) => removed > 0 && logger.info({ removed }, 'expired webhook deliveries removed'),
        (error: unknown) => logger.warn({ err: error }, 'removing expired webhook deliveries failed; tried again at the next round')
      )
      .finally(() => (running = false))
  })
  return () => {
    stopped = true
    stop()
  }
}

/**
 * Starts the trims a process runs beside the change log's own (which each store runs): the
 * expired `Idempotency-Key` answers, hourly, the ended login counters, once a login window, and
 * the webhook delivery log's entries older than `deliveryMaxAgeSeconds` (`WEBHOOK_DELIVERY_MAX_AGE`).
 *
 * @param loginWindowMs the login counters' window, in ms (`LOGIN_WINDOW_MS`).
 * @returns stops them all.
 */
export function startRetention(
  database: Pick<Database, 'books' | 'loginAttempts' | 'webhooks'>,
  loginWindowMs: number,
  logger: TrimLogger,
  deliveryMaxAgeSeconds = DEFAULT_DELIVERY_MAX_AGE_SECONDS
): () => void {
  const stops = [
    trimIdempotencyKeysHourly(database.books, logger),
    trimLoginCounters(database.loginAttempts, loginWindowMs, logger),
    trimDeliveryLog(database.webhooks, deliveryMaxAgeSeconds, logger)
  ]
  return () => stops.forEach((stop) => stop())
}
