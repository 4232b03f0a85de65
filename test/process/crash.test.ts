import assert from 'node:assert/strict'
import { closeSync, copyFileSync, existsSync, openSync, readSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { after, before, describe, test } from 'node:test'
import Database from 'better-sqlite3'
import type { Engine } from '../../src/storage/contracts/engine.js'
import { authHeaders } from '../support/app.js'
import { createPostgresDatabase, engines, type TestDatabase } from '../support/engines.js'
import { removeDirectory, startServer, temporaryDirectory, type RunningServer } from '../support/server.js'
import { BookWorkload } from '../support/workload.js'

/**
 * Durability under crashes (docs/reliability.md): the real server, 50 concurrent writers, killed at a random
 * moment; every acknowledged write must be there after a restart. `npm run test:crash` runs the
 * full form (CRASH_ROUNDS=50); `npm test` runs the short form.
 */
const ROUNDS = Number(process.env.CRASH_ROUNDS ?? 3)
/** SIGTERM rounds: a fifth of the kill rounds, at least 2. */
const TERM_ROUNDS = Math.max(2, Math.round(ROUNDS / 5))
const CONNECTIONS = 50
/** PostgreSQL rounds in the short form are fewer (one of each): its durability is the database's own. */
const shortPostgres = (engine: Engine) => engine === 'postgres' && !process.env.CRASH_ROUNDS
const roundsFor = (engine: Engine) => (shortPostgres(engine) ? 1 : ROUNDS)
const termRoundsFor = (engine: Engine) => (shortPostgres(engine) ? 1 : TERM_ROUNDS)

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const randomBetween = (low: number, high: number) => low + Math.floor(Math.random() * (high - low))

/** Runs `promise`, failing with `what` if it takes longer than `ms`. */
async function within<T>(ms: number, what: string, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: no answer in ${ms} ms`)), ms)))
  try {
    return await Promise.race([promise, timeout])
  } finally {
    clearTimeout(timer)
  }
}

/**
 * `PRAGMA integrity_check` of the SQLite database in `directory` as the dead process left it on
 * disk: the database and its WAL are copied first (not the shared-memory index, which is not
 * durable), so the check sees exactly what a restart would recover.
 */
function integrityOfCrashImage(directory: string): string {
  const copy = temporaryDirectory('book-service-image-')
  try {
    copyFileSync(join(directory, 'books.db'), join(copy, 'books.db'))
    if (existsSync(join(directory, 'books.db-wal'))) copyFileSync(join(directory, 'books.db-wal'), join(copy, 'books.db-wal'))
    const db = new Database(join(copy, 'books.db'))
    try {
      return (db.pragma('integrity_check') as Array<{ integrity_check: string }>).map((row) => row.integrity_check).join('; ')
    } finally {
      db.close()
    }
  } finally {
    removeDirectory(copy)
  }
}

/**
 * The checkpoint sequence number in the header of a WAL file (big-endian, bytes 12..15): SQLite
 * increments it each time a checkpoint lets the WAL restart from its beginning.
 */
function walCheckpointSequence(path: string): number | undefined {
  const header = Buffer.alloc(16)
  const fd = openSync(path, 'r')
  try {
    if (readSync(fd, header, 0, 16, 0) < 16) return undefined
  } finally {
    closeSync(fd)
  }
  return header.readUInt32BE(12)
}

/**
 * SIGKILL for every process of the service at once, as a power cut would: with `WORKERS` > 1 the
 * workers (the pids of the "listening" lines) as well as the primary, which alone would leave its
 * workers to stop gracefully.
 */
async function killEverything(server: RunningServer): Promise<number | string> {
  const listening = server.stdout().split('\n').filter((line) => line.includes(`listening at ${server.url}`))
  for (const line of listening) {
    const { pid } = JSON.parse(line) as { pid: number }
    if (pid !== server.process.pid) {
      try {
        process.kill(pid, 'SIGKILL')
      } catch {
        // already gone
      }
    }
  }
  return server.stop('SIGKILL')
}

/** Each engine with one process, and SQLite with two workers (`WORKERS=2`) writing to the one file. */
const setups = engines.flatMap(({ engine, skip }) => [
  { engine, skip, workers: 1 },
  ...(engine === 'sqlite' ? [{ engine, skip, workers: 2 }] : [])
])

for (const { engine, skip, workers } of setups) {
  describe(`crash durability [${engine}${workers > 1 ? `, WORKERS=${workers}` : ''}]`, { skip }, () => {
    let directory = ''
    let database: TestDatabase | undefined
    const env: Record<string, string> = { WORKERS: String(workers) }
    before(async () => {
      directory = temporaryDirectory()
      if (engine === 'postgres') {
        database = await createPostgresDatabase()
        env.DATABASE_URL = database.url
      }
    })
    after(async () => {
      removeDirectory(directory)
      await database?.drop()
    })

    test(`SIGKILL at a random moment under ${CONNECTIONS} writers, ${roundsFor(engine)} rounds: no acknowledged write lost`, async (t) => {
      const workload = new BookWorkload(`kill-${engine}`)
      let acknowledged = 0
      for (let round = 1; round <= roundsFor(engine); round++) {
        const server = await startServer({ dataDirectory: directory, env })
        let stopped = false
        const running = workload.run(server.url, CONNECTIONS, () => stopped)
        await sleep(randomBetween(150, 1200))
        const signal = await killEverything(server)
        stopped = true
        await running
        assert.equal(signal, 'SIGKILL')
        if (engine === 'sqlite') assert.equal(integrityOfCrashImage(directory), 'ok', `round ${round}: integrity_check`)

        const restarted = await startServer({ dataDirectory: directory, env })
        try {
          const verdict = await workload.verify(restarted.url, 'unknown')
          assert.deepEqual(verdict.violations, [], `round ${round}`)
          acknowledged += verdict.acknowledgedWrites
        } finally {
          await restarted.stop('SIGTERM')
        }
        assert.deepEqual(workload.unexpectedStatuses, [], `round ${round}: unexpected answers`)
      }
      t.diagnostic(`[${engine}, WORKERS=${workers}] SIGKILL: ${roundsFor(engine)} rounds survived, ${workload.requests} requests, ${acknowledged} acknowledged writes checked, 0 lost`)
    })

    test(`SIGTERM under ${CONNECTIONS} writers, ${termRoundsFor(engine)} rounds: in-flight requests finish, exit 0, nothing lost`, async (t) => {
      const workload = new BookWorkload(`term-${engine}`)
      let acknowledged = 0
      const inFlight = { answered: 0, failed: 0 }
      for (let round = 1; round <= termRoundsFor(engine); round++) {
        const server = await startServer({ dataDirectory: directory, env })
        let stopped = false
        const running = workload.run(server.url, CONNECTIONS, () => stopped)
        await sleep(randomBetween(200, 1000))
        const signalledAt = performance.now()
        const code = await within(15_000, `round ${round}: exit after SIGTERM`, server.stop('SIGTERM'))
        stopped = true
        await running
        const open = workload.openAt(signalledAt)
        inFlight.answered += open.answered
        inFlight.failed += open.failed
        assert.equal(code, 0, `round ${round}: exit code\n${server.output().slice(-2000)}`)

        const restarted = await startServer({ dataDirectory: directory, env })
        try {
          // A request whose connection failed was refused by the closing server: it must have had no effect.
          const verdict = await workload.verify(restarted.url, 'not-applied')
          assert.deepEqual(verdict.violations, [], `round ${round}`)
          acknowledged += verdict.acknowledgedWrites
        } finally {
          await restarted.stop('SIGTERM')
        }
        assert.deepEqual(workload.unexpectedStatuses, [], `round ${round}: unexpected answers`)
      }
      t.diagnostic(
        `[${engine}, WORKERS=${workers}] SIGTERM: ${termRoundsFor(engine)} rounds, ${workload.requests} requests, ${acknowledged} acknowledged writes checked, 0 lost; ` +
          `in flight at the signal: ${inFlight.answered} answered, ${inFlight.failed} refused (none applied)`
      )
    })

    test('the WAL stays under 64 MiB during sustained writes: checkpoints reset it', { skip: (engine !== 'sqlite' || workers > 1) && 'SQLite, one process' }, async (t) => {
      const seconds = Number(process.env.WAL_SECONDS ?? 40)
      // A folder of its own: the rounds above leave thousands of books whose listing would slow the writers.
      const own = temporaryDirectory()
      const server = await startServer({ dataDirectory: own, env })
      const wal = join(own, 'books.db-wal')
      let largest = 0
      const checkpoints = new Set<number>()
      let stopped = false
      const sampler = (async () => {
        while (!stopped) {
          if (existsSync(wal)) {
            largest = Math.max(largest, statSync(wal).size)
            const sequence = walCheckpointSequence(wal)
            if (sequence !== undefined) checkpoints.add(sequence)
          }
          await sleep(50)
        }
      })()
      const workload = new BookWorkload('wal')
      // Readers listing every book while the writers run: readers are what can hold checkpoints back.
      const readers = Array.from({ length: 2 }, async () => {
        while (!stopped) {
          await (await fetch(`${server.url}/books`, { headers: authHeaders() })).arrayBuffer()
          await sleep(20)
        }
      })
      const writing = workload.run(server.url, CONNECTIONS, () => stopped)
      // Write until the WAL has been reset twice (checkpoints work), or the time is up.
      const started = Date.now()
      while (checkpoints.size < 3 && Date.now() - started < seconds * 1000) await sleep(100)
      const elapsed = (Date.now() - started) / 1000
      stopped = true
      await Promise.all([writing, sampler, ...readers])
      const code = await server.stop('SIGTERM')
      removeDirectory(own)
      assert.equal(code, 0)
      assert.deepEqual(workload.unexpectedStatuses, [])
      t.diagnostic(
        `WAL: ${workload.requests} writes in ${elapsed.toFixed(1)} s, largest books.db-wal ${(largest / 1048576).toFixed(2)} MiB, ` +
          `${checkpoints.size} checkpoint sequence numbers seen`
      )
      assert.ok(largest < 64 * 1024 * 1024, `WAL reached ${largest} bytes`)
      // The WAL was checkpointed and reused from its start while writes went on, not merely appended to.
      assert.ok(checkpoints.size >= 3, `fewer than two WAL resets seen during the load (${[...checkpoints]})`)
    })
  })
}
