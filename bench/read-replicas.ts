/**
 * `npm run bench:replicas` (docs/benchmarks.md "Read replicas"): the built service on a throwaway
 * PostgreSQL primary with one asynchronous streaming replica on loopback (test/support/cluster.ts),
 * `DATABASE_REPLICA_URLS` naming it (docs/several-instances.md "Read replicas").
 *
 * A read-mostly load, wrk `-t1 -c50` for `BENCH_SECONDS` (default 10), `BENCH_ROUNDS` (default 3)
 * rounds: 9 in 10 requests `GET /book/{id}` (a random one of 1,000 books) by a reading account, 1 in
 * 10 `POST /book` by a writing one (different accounts: a writer's own reads are sticky to the
 * primary until a replica has its write). Prints per round:
 * - the share of the point reads the replica served: the book table's index scans on the replica
 *   against those on the primary (`pg_stat_user_tables`, each server counts its own);
 * - the replica's lag: the primary's WAL position sampled every 10 ms, and how long until the
 *   replica had replayed it (sampled every 2 ms); median and p99;
 * - requests/s and p99 of the load.
 * `BENCH_ENTRY` names another build's `dist/start.js` to measure instead of this checkout's.
 * Needs wrk and PostgreSQL's server binaries (initdb, pg_basebackup).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { createSigner } from 'fast-jwt'
import pg from 'pg'
import { clusterSkipReason, startReplicatedPair } from '../test/support/cluster.js'
import { WRK_RESULT_LUA, wrk } from './postgres-writes.js'
import { startService } from './processes.js'
import { seedPostgres } from './seed.js'

const SECRET = 'bench-secret-0123456789-abcdefghijklmnopqrstuvwxyz'
const sign = createSigner({ key: SECRET, algorithm: 'HS256', expiresIn: 3_600_000 })
const READER = sign({ sub: 'bench-reader' })
const WRITER = sign({ sub: 'bench-writer' })
const BOOKS = 1000
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)

/** Index and sequential scans of the `books` table on the server `client` is connected to. */
async function bookScans(client: pg.Client): Promise<number> {
  const { rows } = await client.query<{ scans: string }>("SELECT (COALESCE(idx_scan, 0) + COALESCE(seq_scan, 0))::text AS scans FROM pg_stat_user_tables WHERE relname = 'books'")
  return Number(rows[0]?.scans ?? 0)
}

/** The value at fraction `q` (0..1) of `values` sorted. */
function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN
}

/** Samples the replica's lag until `stop()`: for each primary position sampled, ms until the replica replayed it. */
function sampleLag(primary: pg.Client, replica: pg.Client): { stop(): Promise<number[]> } {
  const pending: Array<{ lsn: string; at: number }> = []
  const lags: number[] = []
  let running = true
  const primaryLoop = (async () => {
    while (running) {
      const { rows } = await primary.query<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn')
      pending.push({ lsn: rows[0]!.lsn, at: performance.now() })
      await sleep(10)
    }
  })()
  const replicaLoop = (async () => {
    while (running || pending.length > 0) {
      const head = pending[0]
      if (head === undefined) {
        await sleep(2)
        continue
      }
      const { rows } = await replica.query<{ done: boolean }>('SELECT pg_last_wal_replay_lsn() >= $1::pg_lsn AS done', [head.lsn])
      if (rows[0]!.done) {
        // Every sample up to now whose position is replayed: the same answer holds for older ones.
        const now = performance.now()
        lags.push(now - head.at)
        pending.shift()
      } else await sleep(2)
    }
  })()
  return {
    async stop() {
      running = false
      await Promise.all([primaryLoop, replicaLoop])
      return lags
    }
  }
}

if (clusterSkipReason) {
  console.log(`bench:replicas skipped: ${clusterSkipReason}`)
  process.exit(0)
}
const pair = await startReplicatedPair({ synchronous: false })
const directory = mkdtempSync(join(tmpdir(), 'bench-replicas-'))
const script = join(directory, 'read-mostly.lua')
writeFileSync(
  script,
  `
request = function()
  if math.random(1, 10) == 1 then
    return wrk.format("POST", "/book", { ["Content-Type"] = "application/json", ["Authorization"] = "Bearer ${WRITER}" }, '{"title":"A new book","author":"Someone","year":2001}')
  end
  return wrk.format("GET", "/book/" .. math.random(1, ${BOOKS}), { ["Authorization"] = "Bearer ${READER}" })
end
${WRK_RESULT_LUA}`
)
const service = await startService({ directory, databaseUrl: pair.primary.url, secret: SECRET, name: 'replicas', entry: process.env.BENCH_ENTRY, env: { LOG_LEVEL: 'warn', DATABASE_REPLICA_URLS: pair.standbyUrl } })
const primary = new pg.Client({ connectionString: pair.primary.url })
const replica = new pg.Client({ connectionString: pair.standbyUrl })
try {
  await seedPostgres(pair.primary.url, BOOKS)
  await primary.connect()
  await replica.connect()
  await sleep(1000)
  console.log(`bench:replicas: one primary, one asynchronous replica (loopback, fsync off); wrk -t1 -c50, ${SECONDS} s per round, ${ROUNDS} rounds; 90 % GET /book/{id} by a reader, 10 % POST /book by a writer`)
  for (let round = 1; round <= ROUNDS; round++) {
    const before = { primary: await bookScans(primary), replica: await bookScans(replica) }
    const lag = sampleLag(primary, replica)
    const result = await wrk(service.url, script, SECONDS)
    const lags = await lag.stop()
    // Statistics reach the views within a moment of the transactions.
    await sleep(1500)
    const onPrimary = (await bookScans(primary)) - before.primary
    const onReplica = (await bookScans(replica)) - before.replica
    console.log(
      `round ${round}: ${result.rps} req/s, p99 ${result.p99_ms} ms, errors ${result.errors}; ` +
        `reads served by the replica ${((100 * onReplica) / (onReplica + onPrimary)).toFixed(1)} % (${onReplica} of ${onReplica + onPrimary} book-table scans); ` +
        `replica lag median ${quantile(lags, 0.5).toFixed(1)} ms, p99 ${quantile(lags, 0.99).toFixed(1)} ms (${lags.length} samples)`
    )
  }
} finally {
  await primary.end().catch(() => {})
  await replica.end().catch(() => {})
  await service.stop()
  pair.destroy()
  rmSync(directory, { recursive: true, force: true })
}
