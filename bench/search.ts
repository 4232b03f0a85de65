/**
 * `npm run bench:search`: `GET /books?q=…` at 1,000,000 books on SQLite and PostgreSQL (README
 * "Search"; the targets are in docs/benchmarks.md "Search").
 *
 * Per engine: seeds the books (the service's own migrations, so with the search index), starts the
 * built service as a real process, then
 * - first pages (limit 20) of a search matching ~10 books and of one matching ~100,000, each beside
 *   the `title=` filter of the same text, measured one request at a time (p50, p95);
 * - POST and PUT throughput (autocannon) with the index, then without it (SQLite: its triggers
 *   dropped; PostgreSQL: its two indexes dropped), in the same run;
 * - the index's size, and the query plan of each search's candidate statement.
 * Prints a Markdown report. Environment: SEARCH_BOOKS (default 1000000), SEARCH_REQUESTS per
 * latency scenario (default 200, within SEARCH_SCENARIO_SECONDS, default 20), SEARCH_SECONDS per write scenario (default 5), SEARCH_ENGINES
 * (default `sqlite,postgres`).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { cpus, loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import autocannon from 'autocannon'
import Database from 'better-sqlite3'
import { createSigner } from 'fast-jwt'
import pg from 'pg'
import { parseSearch } from '../src/book/search.js'
import type { Engine } from '../src/storage/contracts/engine.js'
import { searchStatement } from '../src/storage/sql/list.js'
import { indexPieces } from '../src/storage/sql/search-pieces.js'
import { startService, type Target } from './processes.js'
import { createPostgresDatabase, seedPostgres, seedSqlite } from './seed.js'

const BOOKS = Number(process.env.SEARCH_BOOKS ?? 1_000_000)
const REQUESTS = Number(process.env.SEARCH_REQUESTS ?? 200)
const SECONDS = Number(process.env.SEARCH_SECONDS ?? 5)
const ENGINES = (process.env.SEARCH_ENGINES ?? 'sqlite,postgres').split(',') as Engine[]
const SECRET = 'search-benchmark-secret-0123456789abcdefghijklmnop'
const token = createSigner({ key: SECRET, algorithm: 'HS256', expiresIn: 3_600_000 })({ sub: 'bench' })
const headers = { authorization: `Bearer ${token}` }

/** The seeded titles are "The collected works, volume <i>": these texts match ~10 and ~100,000 of a million. */
const FEW = `volume ${Math.floor(BOOKS / 80)}`
const MANY = 'volume 1'
const scenarios = [
  { name: `q="${FEW}" (~10 books), first page`, path: `/books?q=${encodeURIComponent(`"${FEW}"`)}&limit=20`, target: 20 },
  { name: `title=${FEW}, first page`, path: `/books?title=${encodeURIComponent(FEW)}&limit=20` },
  { name: `q="${MANY}" (~${Math.round(BOOKS / 9).toLocaleString('en')} books), first page`, path: `/books?q=${encodeURIComponent(`"${MANY}"`)}&limit=20`, target: 50 },
  { name: `title=${MANY}, first page`, path: `/books?title=${encodeURIComponent(MANY)}&limit=20` },
  { name: `q=${FEW.replace(' ', '+')} (unquoted: two terms), first page`, path: `/books?q=${encodeURIComponent(FEW)}&limit=20` },
  { name: 'q=colected (one edit), first page', path: '/books?q=colected&limit=20' }
]

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!

/** Longest a latency scenario runs (a slow one then has fewer than `REQUESTS` requests; at least 10). */
const SCENARIO_BUDGET_MS = Number(process.env.SEARCH_SCENARIO_SECONDS ?? 20) * 1000

/** `REQUESTS` sequential GETs of `path`: p50 and p95 in ms, and the number of books of the last answer. */
async function latency(url: string, path: string): Promise<{ p50: number; p95: number; books: number; requests: number }> {
  const times: number[] = []
  let books = 0
  const deadline = performance.now() + SCENARIO_BUDGET_MS
  for (let i = 0; i < REQUESTS + 5 && (times.length < 10 || performance.now() < deadline); i++) {
    const start = performance.now()
    const response = await fetch(`${url}${path}`, { headers })
    const body = (await response.json()) as { data: unknown[] }
    if (response.status !== 200) throw new Error(`${path}: ${response.status}`)
    if (i >= 5) times.push(performance.now() - start)
    books = body.data.length
  }
  times.sort((a, b) => a - b)
  return { p50: percentile(times, 50), p95: percentile(times, 95), books, requests: times.length }
}

/** Write throughput (req/s) of POST /book, then of PUT /book/{random id}, `SECONDS` each. */
async function writes(url: string): Promise<{ post: number; put: number }> {
  const run = async (method: 'POST' | 'PUT') => {
    let n = 0
    const result = await autocannon({
      url,
      connections: 8,
      duration: SECONDS,
      headers: { ...headers, 'content-type': 'application/json' },
      requests: [
        {
          method,
          setupRequest: (request) => {
            n++
            const book = { title: `Bench write ${n}`, author: `Writer ${n % 97}`, year: 2000 }
            return { ...request, path: method === 'POST' ? '/book' : `/book/${1 + Math.floor(Math.random() * BOOKS)}`, body: JSON.stringify(book) }
          }
        }
      ]
    })
    if (result.non2xx > 0) throw new Error(`${method}: ${result.non2xx} non-2xx answers`)
    return result.requests.average
  }
  return { post: await run('POST'), put: await run('PUT') }
}

interface EngineReport {
  engine: Engine
  seedSeconds: number
  latencies: { name: string; target?: number; p50: number; p95: number; books: number; requests: number }[]
  withIndex: { post: number; put: number }
  withoutIndex: { post: number; put: number }
  indexBytes: number
  plans: string[]
}

async function benchEngine(engine: Engine): Promise<EngineReport | undefined> {
  const directory = mkdtempSync(join(tmpdir(), 'book-search-bench-'))
  let databaseUrl = join(directory, 'books.db')
  let drop = async () => {}
  let service: Target | undefined
  try {
    const seedStart = performance.now()
    if (engine === 'sqlite') {
      await seedSqlite(databaseUrl, BOOKS)
    } else {
      const database = await createPostgresDatabase()
      if ('skip' in database) {
        console.log(database.skip)
        return undefined
      }
      databaseUrl = database.url
      drop = database.drop
      // The service migrates the empty database (0009 included), then the books are inserted.
      const first = await startService({ directory, databaseUrl, secret: SECRET, env: { LOG_LEVEL: 'warn' } })
      await first.stop()
      await seedPostgres(databaseUrl, BOOKS)
    }
    const seedSeconds = (performance.now() - seedStart) / 1000
    console.log(`${engine}: seeded ${BOOKS.toLocaleString('en')} books in ${seedSeconds.toFixed(0)} s`)

    const plans = await queryPlans(engine, databaseUrl)
    const indexBytes = await indexSize(engine, databaseUrl)
    service = await startService({ directory, databaseUrl, secret: SECRET, env: { LOG_LEVEL: 'warn' } })
    const latencies = []
    for (const scenario of scenarios) {
      const measured = await latency(service.url, scenario.path)
      latencies.push({ name: scenario.name, target: scenario.target, ...measured })
      console.log(`${engine}: ${scenario.name}: p50 ${measured.p50.toFixed(1)} ms, p95 ${measured.p95.toFixed(1)} ms`)
    }
    const withIndex = await writes(service.url)
    await service.stop()
    await dropIndex(engine, databaseUrl)
    service = await startService({ directory, databaseUrl, secret: SECRET, env: { LOG_LEVEL: 'warn' } })
    const withoutIndex = await writes(service.url)
    console.log(`${engine}: writes with the index ${JSON.stringify(withIndex)}, without ${JSON.stringify(withoutIndex)}`)
    return { engine, seedSeconds, latencies, withIndex, withoutIndex, indexBytes, plans }
  } finally {
    await service?.stop()
    await drop()
    rmSync(directory, { recursive: true, force: true })
  }
}

/** The plan of each search scenario's candidate statement (EXPLAIN QUERY PLAN / EXPLAIN ANALYZE). */
async function queryPlans(engine: Engine, url: string): Promise<string[]> {
  const plans: string[] = []
  for (const q of [`"${FEW}"`, `"${MANY}"`]) {
    const search = parseSearch(q)!
    const { sql, parameters } = await searchStatement(engine, { search }, indexPieces(search))
    if (engine === 'sqlite') {
      const db = new Database(url, { readonly: true })
      const rows = db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...parameters) as { detail: string }[]
      db.close()
      plans.push(`q=${q}:\n${rows.map((row) => `  ${row.detail}`).join('\n')}`)
    } else {
      const client = new pg.Client({ connectionString: url })
      await client.connect()
      const { rows } = await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, COSTS OFF) ${sql}`, [...parameters])
      await client.end()
      plans.push(`q=${q}:\n${rows.map((row) => `  ${row['QUERY PLAN']}`).join('\n')}`)
    }
  }
  return plans
}

/** The bytes of the search index: SQLite the FTS5 table's shadow tables (dbstat), PostgreSQL its two GIN indexes. */
async function indexSize(engine: Engine, url: string): Promise<number> {
  if (engine === 'sqlite') {
    const db = new Database(url, { readonly: true })
    const { bytes } = db.prepare("SELECT sum(pgsize) AS bytes FROM dbstat WHERE name LIKE 'book_search%'").get() as { bytes: number }
    db.close()
    return bytes
  }
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  const { rows } = await client.query<{ bytes: string }>(
    "SELECT sum(pg_relation_size(c.oid)) AS bytes FROM pg_class c WHERE c.relname IN ('books_title_search_trgm', 'books_author_search_trgm')"
  )
  await client.end()
  return Number(rows[0]!.bytes)
}

/** Removes what keeps the index in step with the writes, for the "without the index" run. */
async function dropIndex(engine: Engine, url: string): Promise<void> {
  if (engine === 'sqlite') {
    const db = new Database(url)
    db.exec('DROP TRIGGER book_search_insert; DROP TRIGGER book_search_update; DROP TRIGGER book_search_delete')
    db.close()
    return
  }
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  await client.query('DROP INDEX books_title_search_trgm; DROP INDEX books_author_search_trgm')
  await client.end()
}

const reports: EngineReport[] = []
for (const engine of ENGINES) {
  const report = await benchEngine(engine)
  if (report) reports.push(report)
}
const ms = (value: number) => value.toFixed(1)
const lines = [
  `## Search — ${new Date().toISOString()}, ${BOOKS.toLocaleString('en')} books`,
  '',
  `Node ${process.version}, ${cpus().length} CPUs, load average at the end ${loadavg()[0]!.toFixed(1)} (shared machine). ` +
    `Latency: ${REQUESTS} sequential requests per scenario; writes: autocannon, 8 connections, ${SECONDS} s each.`,
  ''
]
for (const report of reports) {
  lines.push(`### ${report.engine}`, '', `Seeded in ${report.seedSeconds.toFixed(0)} s; index size ${(report.indexBytes / 1024 / 1024).toFixed(1)} MB.`, '')
  lines.push('| Scenario | books | requests | p50 ms | p95 ms | target |', '|---|---:|---:|---:|---:|---|')
  for (const row of report.latencies) {
    const target = row.target === undefined ? '' : `p95 < ${row.target} ms: ${row.p95 < row.target ? 'met' : 'unmet'}`
    lines.push(`| ${row.name} | ${row.books} | ${row.requests} | ${ms(row.p50)} | ${ms(row.p95)} | ${target} |`)
  }
  const ratio = (key: 'post' | 'put') => report.withIndex[key] / report.withoutIndex[key]
  lines.push(
    '',
    `| Writes | with index req/s | without req/s | ratio (target ≥ 0.85) |`,
    '|---|---:|---:|---:|',
    `| POST /book | ${report.withIndex.post.toFixed(0)} | ${report.withoutIndex.post.toFixed(0)} | ${ratio('post').toFixed(2)} |`,
    `| PUT /book/{id} | ${report.withIndex.put.toFixed(0)} | ${report.withoutIndex.put.toFixed(0)} | ${ratio('put').toFixed(2)} |`,
    '',
    'Plans of the candidate statements:',
    '',
    '```',
    ...report.plans,
    '```',
    ''
  )
}
console.log(`\n${lines.join('\n')}`)
