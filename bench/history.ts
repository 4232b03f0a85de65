/**
 * `npm run bench:history` (README "History and restore", docs/benchmarks.md "History"):
 *
 * 1. The first page (`?limit=50`) of the history of a book with 10,000 versions among 1,000,000
 *    changes, on each engine: the log is seeded directly (one book's rows every 100th), then the
 *    real service answers `GET /book/{id}/history?limit=50` under autocannon; p50/p99 and the
 *    space the log takes per million changes (SQLite: `dbstat`; PostgreSQL:
 *    `pg_total_relation_size`, table and indexes).
 * 2. POST /book and PUT /book/{id} throughput of this build (the actor and request id recorded
 *    with each change) against `BASELINE_DIST` (a build of the release before them, e.g.
 *    `git archive <commit> | tar -x -C /tmp/base && cd /tmp/base && npm run build`), in the same
 *    run, alternating A/B twice, on fresh SQLite files (and PostgreSQL databases when reachable).
 *
 * 3. With HISTORY_PARTS=whole, `GET /book/1/history` without `limit` of one book of many
 *    versions, read by 10 clients at once: the process's RSS growth (`wholeHistory` below).
 *
 * Short runs (3 s each): the numbers are for comparison within one run on this machine.
 */
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { createSigner } from 'fast-jwt'
import pg from 'pg'
import { measure, type Load, type Measurement } from './load.js'
import { SERVER_ENTRY, freePort, startProcess, type Target } from './processes.js'
import { SqliteDatabase } from '../src/storage/sqlite/sqlite-database.js'
import { PostgresDatabase } from '../src/storage/postgres/postgres-database.js'
import { createScratchDatabase } from '../test/support/scratch-database.js'

const SECRET = 'bench-history-secret-0123456789abcdef'
const token = createSigner({ key: SECRET })({ sub: 'bench', role: 'editor' })
const headers = { authorization: `Bearer ${token}` }
const CHANGES = Number(process.env.HISTORY_CHANGES ?? 1_000_000)
const VERSIONS = Number(process.env.HISTORY_VERSIONS ?? 10_000)
const BASELINE_DIST = process.env.BASELINE_DIST ?? '/tmp/issue28-base/dist'
const POSTGRES_URL = process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test'
const directory = mkdtempSync(join(tmpdir(), 'bench-history-'))

/** Starts `entry` (a built start.js) on `databaseUrl`. */
async function start(name: string, entry: string, databaseUrl: string, nodeFlags: string[] = []): Promise<Target> {
  const port = await freePort()
  return startProcess({
    name,
    args: [...nodeFlags, entry],
    // HEAVY_READS: every reader of the whole-history part runs at once (the fair share would queue them).
    env: { HOST: '127.0.0.1', PORT: String(port), DATABASE_URL: databaseUrl, SECRET_TOKEN: SECRET, AUTH_PASSWORD: 'bench-password', LOG_LEVEL: 'warn', HEAVY_READS: '64', HEAVY_READ_WAIT: '60' },
    port,
    logFile: join(directory, `${name}.log`),
    readyPath: '/healthz'
  })
}

/** The rows of the seeded log: the target book (id 1) every `CHANGES / VERSIONS`th row. */
function seededRow(seq: number): [number, string, number, string, string, number, string, string] {
  const every = Math.floor(CHANGES / VERSIONS)
  const target = seq % every === 0
  const bookId = target ? 1 : 2 + (seq % 50_000)
  const version = target ? seq / every : 1 + Math.floor(seq / 50_000)
  const at = new Date(Date.now() - (CHANGES - seq) * 1000).toISOString()
  return [bookId, seq === every ? 'created' : 'updated', version, `Title of book ${bookId}, edition ${version}`, 'Some Author', 1900 + (seq % 120), at, `req-${seq.toString(36)}`]
}

async function seedSqlite(path: string): Promise<string> {
  await (await SqliteDatabase.open(path)).close()
  const db = new Database(path)
  const insert = db.prepare(
    'INSERT INTO book_changes (seq, book_id, operation, version, title, author, year, changed_at, actor, request_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)'
  )
  db.transaction(() => {
    for (let seq = 1; seq <= CHANGES; seq++) {
      const [bookId, operation, version, title, author, year, at, request] = seededRow(seq)
      insert.run(seq, bookId, operation, version, title, author, year, at, 'bench', request)
    }
    db.prepare("INSERT INTO books (id, title, author, year, title_folded, author_folded, version) VALUES (1, 'T', 'A', 2000, 't', 'a', ?)").run(VERSIONS)
  })()
  db.pragma('wal_checkpoint(TRUNCATE)')
  let bytes = 'dbstat unavailable'
  try {
    const row = db.prepare("SELECT sum(pgsize) AS bytes FROM dbstat WHERE name IN ('book_changes', 'book_changes_book_seq')").get() as { bytes: number }
    bytes = `${(row.bytes / 1024 / 1024).toFixed(1)} MB (table and index)`
  } catch {
    // dbstat is a compile-time option of SQLite.
  }
  db.close()
  return bytes
}

async function seedPostgres(url: string): Promise<string> {
  await (await PostgresDatabase.open(url, { poolSize: 2, startupTimeoutMs: 0 })).close()
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    const every = Math.floor(CHANGES / VERSIONS)
    await client.query(
      `INSERT INTO book_changes (seq, book_id, operation, version, title, author, year, changed_at, actor, request_id)
       SELECT g, CASE WHEN g % $2 = 0 THEN 1 ELSE 2 + g % 50000 END,
         CASE WHEN g = $2 THEN 'created' ELSE 'updated' END,
         CASE WHEN g % $2 = 0 THEN g / $2 ELSE 1 + g / 50000 END,
         'Title of book ' || (g % 50000) || ', edition ' || (g / 50000), 'Some Author', 1900 + g % 120,
         to_char((now() - ($1 - g) * interval '1 second') AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), 'bench', 'req-' || g
       FROM generate_series(1, $1) AS g`,
      [CHANGES, every]
    )
    await client.query("SELECT setval('book_changes_seq', $1)", [CHANGES]).catch(() => {})
    await client.query(`INSERT INTO books (id, title, author, year, title_folded, author_folded, version) OVERRIDING SYSTEM VALUE VALUES (1, 'T', 'A', 2000, 't', 'a', $1)`, [VERSIONS])
    await client.query('VACUUM ANALYZE book_changes')
    const { rows } = await client.query<{ bytes: string }>("SELECT pg_total_relation_size('book_changes') AS bytes")
    return `${(Number(rows[0]!.bytes) / 1024 / 1024).toFixed(1)} MB (table, indexes and TOAST)`
  } finally {
    await client.end()
  }
}

/**
 * The first page read `READS` times through the storage itself, in this process (no HTTP, no
 * client): what the query costs, apart from the machine's load on the HTTP path.
 */
async function storeReads(engine: 'sqlite' | 'postgres', url: string): Promise<string> {
  const storage = engine === 'sqlite' ? await SqliteDatabase.open(url) : await PostgresDatabase.open(url, { poolSize: 2, startupTimeoutMs: 0 })
  try {
    const times: number[] = []
    for (let i = 0; i < 2000; i++) {
      const started = performance.now()
      const page = await storage.books.history(1, Number.MAX_SAFE_INTEGER, 50)
      times.push(performance.now() - started)
      if (page?.entries.length !== 50 || page.entries[0]!.version !== VERSIONS) throw new Error('unexpected first page')
    }
    times.sort((a, b) => a - b)
    const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))]!.toFixed(2)
    return `storage.books.history first page (50 of ${VERSIONS}), 2,000 reads in process: p50 ${at(0.5)} ms, p99 ${at(0.99)} ms`
  } finally {
    await storage.close()
  }
}

const firstPage: Load = { request: () => ({ method: 'GET', path: '/book/1/history?limit=50' }), headers, connections: 4, duration: 5, warmup: 1 }

let created = 0
const post: Load = {
  request: () => ({ method: 'POST', path: '/book', body: JSON.stringify({ title: `Bench ${++created}`, author: 'B', year: 2000 }) }),
  headers,
  connections: 16,
  duration: 3,
  warmup: 1
}
const put: Load = {
  request: () => ({ method: 'PUT', path: `/book/${1 + Math.floor(Math.random() * 100)}`, body: JSON.stringify({ year: Math.floor(Math.random() * 2000) }) }),
  headers,
  connections: 16,
  duration: 3,
  warmup: 1
}

const line = (label: string, m: Measurement) => `${label}: ${m.rps} req/s, p50 ${m.p50_ms} ms, p99 ${m.p99_ms} ms, errors ${m.errors}`

async function postgresReachable(): Promise<boolean> {
  const client = new pg.Client({ connectionString: POSTGRES_URL, connectionTimeoutMillis: 3000 })
  try {
    await client.connect()
    return true
  } catch {
    return false
  } finally {
    await client.end().catch(() => {})
  }
}

/** Resident set size of process `pid`, in MiB (Linux `/proc`). */
function rssMiB(pid: number): number {
  const kib = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0)
  return kib / 1024
}

/** A client of its own reading `GET <argv[1]>` one request at a time (20 ms apart) until its stdin gets data; prints the latencies (ms, JSON). */
const POINT_READER = `
const [url, authorization] = process.argv.slice(1)
const times = []
let reading = true
process.stdin.once('data', () => (reading = false))
while (reading) {
  const at = performance.now()
  const response = await fetch(url, { headers: { authorization } })
  await response.arrayBuffer()
  if (response.status !== 200) throw new Error('GET ' + url + ' answered ' + response.status)
  times.push(performance.now() - at)
  await new Promise((resolve) => setTimeout(resolve, 20))
}
process.stdout.write(JSON.stringify(times))
`

/** Percentile `q` (0..1) of `sorted` (ascending), in ms. */
const percentile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN

/**
 * HISTORY_PARTS=whole: `GET /book/1/history` without `limit` (every version) read by
 * `WHOLE_READERS` clients at once, `WHOLE_ROUNDS` times each, on the real process, on SQLite: the
 * process's RSS growth (its peak, sampled every 20 ms, minus its RSS before), this build against
 * `BASELINE_DIST` when it exists, alternated over 3 runs each. Meanwhile one more client reads
 * `GET /book/1` one request at a time (a point read beside the long answers): its p50 and max.
 * Seed with HISTORY_CHANGES=HISTORY_VERSIONS=50000 for one book of 50,000 versions.
 * `WHOLE_NODE_FLAGS` (space-separated) are given to both processes' Node.js (e.g.
 * `--max-semi-space-size=16`, to see how much of the growth is V8's young generation).
 */
async function wholeHistory(): Promise<void> {
  const readers = Number(process.env.WHOLE_READERS ?? 10)
  const rounds = Number(process.env.WHOLE_ROUNDS ?? 3)
  const url = join(directory, 'whole.db')
  await seedSqlite(url)
  const builds = [['this build', join(SERVER_ENTRY, '..')], ...(existsSync(join(BASELINE_DIST, 'start.js')) ? [['baseline', BASELINE_DIST]] : [])] as const
  console.log(`# whole history: one book of ${VERSIONS} versions, ${readers} readers x ${rounds} reads, RSS growth of the process (MiB); ${builds.map(([name, dist]) => `${name} ${dist}`).join(', ')}`)
  const growth: Record<string, number[]> = {}
  for (const run of [1, 2, 3]) {
    for (const [name, dist] of builds) {
      const nodeFlags = (process.env.WHOLE_NODE_FLAGS ?? '').split(' ').filter(Boolean)
      const target = await start(`whole-${name.replace(' ', '-')}-${run}`, join(dist, 'start.js'), url, nodeFlags)
      try {
        const pid = target.child.pid!
        const before = rssMiB(pid)
        let peak = before
        const sampler = setInterval(() => (peak = Math.max(peak, rssMiB(pid))), 20)
        let bytes = 0
        let entries = 0
        const started = performance.now()
        // The point reader runs in a process of its own: this one parses the long answers, which
        // would delay its timings by its own event loop's stalls.
        const pointReader = spawn(process.execPath, ['--input-type=module', '-e', POINT_READER, `${target.url}/book/1`, headers.authorization], { stdio: ['pipe', 'pipe', 'inherit'] })
        let pointOutput = ''
        pointReader.stdout.on('data', (data: Buffer) => (pointOutput += data.toString()))
        const pointReaderExited = new Promise((resolve) => pointReader.once('exit', resolve))
        await Promise.all(
          Array.from({ length: readers }, async () => {
            for (let round = 0; round < rounds; round++) {
              const response = await fetch(`${target.url}/book/1/history`, { headers })
              if (response.status !== 200) throw new Error(`${name}: GET /book/1/history answered ${response.status}`)
              const body = await response.text()
              bytes += Buffer.byteLength(body)
              entries = (JSON.parse(body) as { data: unknown[] }).data.length
            }
          })
        )
        pointReader.stdin.end('stop')
        await pointReaderExited
        clearInterval(sampler)
        peak = Math.max(peak, rssMiB(pid))
        const pointReads = (JSON.parse(pointOutput) as number[]).sort((a, b) => a - b)
        ;(growth[name] ??= []).push(peak - before)
        console.log(`run ${run} ${name}: RSS ${before.toFixed(0)} -> peak ${peak.toFixed(0)} MiB (growth ${(peak - before).toFixed(0)} MiB), ${(bytes / readers / rounds / 1024 / 1024).toFixed(1)} MiB per answer (${entries} entries), ${((performance.now() - started) / 1000).toFixed(1)} s; GET /book/1 meanwhile: ${pointReads.length} reads, p50 ${percentile(pointReads, 0.5).toFixed(1)} ms, max ${percentile(pointReads, 1).toFixed(1)} ms`)
      } finally {
        await target.stop()
      }
    }
  }
  for (const [name, values] of Object.entries(growth)) {
    const sorted = [...values].sort((a, b) => a - b)
    console.log(`${name}: RSS growth median ${sorted[Math.floor(sorted.length / 2)]!.toFixed(0)} MiB, range ${sorted[0]!.toFixed(0)}-${sorted[sorted.length - 1]!.toFixed(0)} MiB`)
  }
}

if (process.env.HISTORY_PARTS === 'whole') {
  try {
    await wholeHistory()
  } finally {
    rmSync(directory, { recursive: true, force: true })
  }
  process.exit(0)
}

const engines: Array<'sqlite' | 'postgres'> = ['sqlite', ...((await postgresReachable()) ? (['postgres'] as const) : [])]
try {
  console.log(`# history first page: ${CHANGES} changes, one book with ${VERSIONS} versions`)
  for (const engine of engines) {
    const scratch = engine === 'postgres' ? await createScratchDatabase(POSTGRES_URL, 'bench_history') : undefined
    const url = scratch?.url ?? join(directory, 'history.db')
    const seededAt = performance.now()
    const space = engine === 'sqlite' ? await seedSqlite(url) : await seedPostgres(url)
    console.log(`${engine}: seeded in ${((performance.now() - seededAt) / 1000).toFixed(1)} s; the log takes ${space} for ${CHANGES} changes`)
    console.log(`${engine} ${await storeReads(engine, url)}`)
    const service = await start(`history-${engine}`, SERVER_ENTRY, url)
    try {
      console.log(line(`${engine} GET /book/1/history?limit=50`, await measure(service, firstPage)))
    } finally {
      await service.stop()
      await scratch?.drop()
    }
  }

  // HISTORY_PARTS=first-page: only the part above.
  const writeEngines = process.env.HISTORY_PARTS === 'first-page' ? [] : engines
  if (writeEngines.length > 0) console.log(`# POST and PUT: this build (actor recorded) against ${BASELINE_DIST} (same run, A/B alternated twice)`)
  for (const engine of writeEngines) {
    const results: Record<string, Measurement[]> = {}
    for (const round of [1, 2]) {
      for (const [name, dist] of [['baseline', BASELINE_DIST], ['this build', join(SERVER_ENTRY, '..')]] as const) {
        const scratch = engine === 'postgres' ? await createScratchDatabase(POSTGRES_URL, 'bench_writes') : undefined
        const target = await start(`${name.replace(' ', '-')}-${engine}-${round}`, join(dist, 'start.js'), scratch?.url ?? join(directory, `${name.replace(' ', '-')}-${round}.db`))
        try {
          created = 0
          const posted = await measure(target, post)
          const updated = await measure(target, put)
          ;(results[`${name} POST`] ??= []).push(posted)
          ;(results[`${name} PUT`] ??= []).push(updated)
          console.log(line(`${engine} round ${round} ${name} POST`, posted))
          console.log(line(`${engine} round ${round} ${name} PUT`, updated))
        } finally {
          await target.stop()
          await scratch?.drop()
        }
      }
    }
    for (const op of ['POST', 'PUT']) {
      const mean = (key: string) => results[key]!.reduce((sum, m) => sum + m.rps, 0) / results[key]!.length
      const ratio = mean(`this build ${op}`) / mean(`baseline ${op}`)
      console.log(`${engine} ${op}: this build ${mean(`this build ${op}`).toFixed(0)} req/s, baseline ${mean(`baseline ${op}`).toFixed(0)} req/s, ratio ${ratio.toFixed(3)}`)
    }
  }
} finally {
  rmSync(directory, { recursive: true, force: true })
}
