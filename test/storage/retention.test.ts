import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { loadConfig } from '../../src/config.js'
import { UNKNOWN_CHANGE_CONTEXT } from '../../src/storage/contracts/change-log.js'
import { DEFAULT_RETENTION, IDEMPOTENCY_TRIM_INTERVAL_MS, trimLoginCounters, trimThrough } from '../../src/storage/retention.js'
import { IDEMPOTENCY_TTL_MS } from '../../src/storage/contracts/idempotency.js'
import { SqliteDatabase } from '../../src/storage/sqlite/sqlite-database.js'
import { LOGIN_WINDOW_MS } from '../../src/auth/login-limits.js'
import { buildTestApp } from '../support/app.js'
import { eventually } from '../support/client.js'
import { dune } from '../support/books.js'

const NOW = Date.parse('2026-06-01T12:00:00.000Z')
/** A row committed `secondsAgo` before {@link NOW}. */
const row = (seq: number, secondsAgo: number) => ({ seq, changed_at: new Date(NOW - secondsAgo * 1000).toISOString() })

describe('which rows a retention step removes', () => {
  test('beyond the row limit: the oldest, up to lastSeq - maxRows', () => {
    const oldest = [1, 2, 3, 4, 5].map((seq) => row(seq, 10))
    assert.equal(trimThrough(oldest, 5, NOW, { maxAgeSeconds: 3600, maxRows: 2 }), 3)
    assert.equal(trimThrough(oldest, 5, NOW, { maxAgeSeconds: 3600, maxRows: 5 }), 0)
  })

  test('older than the age limit: the leading run of them', () => {
    const oldest = [row(1, 7200), row(2, 3601), row(3, 3599), row(4, 10)]
    assert.equal(trimThrough(oldest, 4, NOW, { maxAgeSeconds: 3600, maxRows: 100 }), 2)
  })

  test('a row kept stops the run, even when a later one is old (a clock that stepped back): the log stays contiguous', () => {
    const oldest = [row(1, 7200), row(2, 10), row(3, 7200)]
    assert.equal(trimThrough(oldest, 3, NOW, { maxAgeSeconds: 3600, maxRows: 100 }), 1)
  })

  test('an empty log: nothing', () => {
    assert.equal(trimThrough([], 0, NOW, { maxAgeSeconds: 1, maxRows: 1 }), 0)
  })
})

describe('the retention a history needs (README "History and restore")', () => {
  test('maxRows 0: no limit by count, only age removes rows', () => {
    const oldest = [row(1, 7200), row(2, 10), row(3, 10)]
    assert.equal(trimThrough(oldest, 3_000_000_000, NOW, { maxAgeSeconds: 3600, maxRows: 0 }), 1)
    assert.equal(trimThrough([row(1, 10)], 5_000_000_000, NOW, { maxAgeSeconds: 3600, maxRows: 0 }), 0)
  })

  test('the defaults keep a change of 365 days ago, whatever the number of changes since', () => {
    const yearAgo = [row(1, 365 * 86_400), row(2, 365 * 86_400)]
    assert.equal(trimThrough(yearAgo, 10_000_000_000, NOW, DEFAULT_RETENTION), 0)
    assert.equal(trimThrough([row(1, 367 * 86_400)], 1, NOW, DEFAULT_RETENTION), 1)
    const config = loadConfig({}, false)
    assert.deepEqual({ maxAgeSeconds: config.CHANGE_LOG_MAX_AGE, maxRows: config.CHANGE_LOG_MAX_ROWS }, DEFAULT_RETENTION)
  })
})

describe('the trim of ended login counters', () => {
  const WINDOW_MS = 60_000
  const logger = { info: () => {}, warn: () => {} }

  test('removes the counters whose window ended at once and then every window, until stopped', async (t) => {
    const start = Date.parse('2026-06-01T12:00:00.000Z')
    t.mock.timers.enable({ apis: ['setInterval', 'Date'], now: start })
    const database = await SqliteDatabase.open(':memory:')
    try {
      const attempts = database.loginAttempts
      await attempts.add(['ended'], start - 2 * WINDOW_MS, WINDOW_MS)
      await attempts.add(['running'], start, WINDOW_MS)
      // A count taken as of each counter's own window: 1 while its row is kept, 0 once removed.
      const kept = async (key: string, at: number) => (await attempts.counts([key], at + 1, WINDOW_MS))[0]!.attempts
      const stop = trimLoginCounters(attempts, WINDOW_MS, logger)
      await new Promise((resolve) => setImmediate(resolve))
      assert.equal(await kept('ended', start - 2 * WINDOW_MS), 0, 'an ended window is removed at once')
      assert.equal(await kept('running', start), 1, 'a running window is kept')
      t.mock.timers.tick(WINDOW_MS)
      await new Promise((resolve) => setImmediate(resolve))
      assert.equal(await kept('running', start), 0, 'removed a window later, with no login meanwhile')
      stop()
      await attempts.add(['later'], start, WINDOW_MS)
      t.mock.timers.tick(2 * WINDOW_MS)
      await new Promise((resolve) => setImmediate(resolve))
      assert.equal(await kept('later', start), 1, 'nothing removed once stopped')
    } finally {
      t.mock.timers.reset()
      await database.close()
    }
  })

  test('a failure is logged and tried again at the next round', async (t) => {
    t.mock.timers.enable({ apis: ['setInterval'] })
    let calls = 0
    const warnings: string[] = []
    const stop = trimLoginCounters(
      {
        forgetBefore: async () => {
          calls++
          throw new Error('database down')
        }
      },
      WINDOW_MS,
      { info: () => {}, warn: (_fields, message) => void warnings.push(message) }
    )
    try {
      await new Promise((resolve) => setImmediate(resolve))
      t.mock.timers.tick(WINDOW_MS)
      await new Promise((resolve) => setImmediate(resolve))
      assert.equal(calls, 2)
      assert.deepEqual(warnings, Array(2).fill('removing ended login counters failed; tried again at the next round'))
    } finally {
      stop()
    }
  })
})

describe('the retention jobs of a running app', () => {
  test('once ready, the app removes expired Idempotency-Key answers and ended login counters; closed, it stops', async (t) => {
    const start = Date.now()
    const database = await SqliteDatabase.open(':memory:')
    const old = start - IDEMPOTENCY_TTL_MS - 5000
    const claim = { subject: '"alice"', key: 'old', fingerprint: 'f1', now: new Date(old).toISOString(), expiredBefore: new Date(old - IDEMPOTENCY_TTL_MS).toISOString() }
    await database.books.createIdempotent(dune, claim, UNKNOWN_CHANGE_CONTEXT)
    await database.loginAttempts.add(['ended'], start - 2 * LOGIN_WINDOW_MS, LOGIN_WINDOW_MS)
    const counted = async () => (await database.loginAttempts.counts(['ended'], start - 2 * LOGIN_WINDOW_MS + 1, LOGIN_WINDOW_MS))[0]!.attempts
    assert.equal(await counted(), 1)
    // The app's trims of the answers, recorded as they run (each removes what expired).
    const trims: Array<Promise<number>> = []
    const trimKeys = database.books.trimIdempotencyKeys.bind(database.books)
    database.books.trimIdempotencyKeys = (before) => {
      const trim = trimKeys(before)
      trims.push(trim)
      return trim
    }
    t.mock.timers.enable({ apis: ['setInterval'] })
    const app = await buildTestApp({}, database)
    try {
      // Both trims start when the app is ready, each first at once.
      await eventually('the app trims the Idempotency-Key answers', async () => trims.length > 0)
      assert.equal(await trims[0], 1, 'the expired answer was removed by the app')
      await eventually('the app removes the ended login counter', async () => (await counted()) === 0)
      t.mock.timers.tick(IDEMPOTENCY_TRIM_INTERVAL_MS)
      assert.equal(trims.length, 2, 'the hourly trim runs again an hour later')
      await app.close()
      t.mock.timers.tick(IDEMPOTENCY_TRIM_INTERVAL_MS)
      assert.equal(trims.length, 2, 'no trim once the app is closed')
    } finally {
      await app.close()
      t.mock.timers.reset()
    }
  })
})
