/**
 * `npm run bench:search`: `GET /books?q=…` at 1,000,000 books on SQLite and PostgreSQL (README
 * "Search"; the targets are in docs/benchmarks.md "Search").
 *
 * Per engine: seeds the books (the service's own migrations, so with the search index; the seeded
 * database is kept under `~/.cache/book-service/` and copied for each run: SQLite as a file,
 * PostgreSQL as a template database), starts the built service as a real process, then
 * - first pages (limit 20) of the issue's searches (docs/benchmarks.md "Search": a term in ~10
 *   books, quoted and not; `the` and `volume`, in every book; ~11 % of the books; one edit of a
 *   word of every book; one character) and the second page of the broad ones, beside the
 *   `title=` filter, measured one request at a time (p50, p95);
 * - POST and PUT throughput (autocannon) with the index, then without it (SQLite: its triggers
 *   dropped; PostgreSQL: its two indexes dropped), in the same run;
 * - under load ({@link underLoad}): LOAD_SEARCHERS connections (wrk) repeating the broadest search
 *   (`q=e`) for SEARCH_LOAD_SECONDS (default 15), while bench/normal-client.ts (`GET /book/1`, a
 *   new connection each time) and 4 writers (`POST /book`) run: the normal client's answers and p99, the
 *   writers' throughput against the same writers alone, the service's peak RSS;
 * - the index's size, and the query plan of each search's candidate statement.
 * Prints a Markdown report. Environment: SEARCH_LOAD_PATH (the read under load, default
 * `/books?q=e&limit=20`), SEARCH_BOOKS (default 1000000), SEARCH_REQUESTS per
 * latency scenario (default 200, within SEARCH_SCENARIO_SECONDS, default 20), SEARCH_SECONDS per write scenario (default 5), SEARCH_ENGINES
 * (default `sqlite,postgres`), SEARCH_ENTRY (another build's `dist/start.js` to measure instead of
 * this checkout's, on the same seeded databases: e.g. bench:compare's build of an earlier commit
 * under `~/.cache/book-service/bench-compare/<sha>`, for a before-and-after in one session).
 */
import { spawn } from 'node:child_process'
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { cpus, homedir, loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import autocannon from 'autocannon'
import Database from 'better-sqlite3'
import { createSigner } from 'fast-jwt'
import pg from 'pg'
import { parseSearch } from '../src/book/search.js'
import type { Engine } from '../src/storage/contracts/engine.js'
import { fewCandidatesStatement } from '../src/storage/sql/list.js'
import { FEW_CANDIDATES } from '../src/storage/sql/search-results.js'
import { indexPieces } from '../src/storage/sql/search-pieces.js'
import { MIGRATION_NAMES } from '../src/storage/schema/migrate.js'
import { sampleResident, startNormalClient, startService, type NormalClientFigures, type Target } from './processes.js'
import { POSTGRES_ADMIN_URL, seedPostgres, seedSqlite } from './seed.js'

const BOOKS = Number(process.env.SEARCH_BOOKS ?? 1_000_000)
const REQUESTS = Number(process.env.SEARCH_REQUESTS ?? 200)
const SECONDS = Number(process.env.SEARCH_SECONDS ?? 5)
const ENGINES = (process.env.SEARCH_ENGINES ?? 'sqlite,postgres').split(',') as Engine[]
const ENTRY = process.env.SEARCH_ENTRY
const SECRET = 'search-benchmark-secret-0123456789abcdefghijklmnop'
const token = createSigner({ key: SECRET, algorithm: 'HS256', expiresIn: 3_600_000 })({ sub: 'bench' })
const headers = { authorization: `Bearer ${token}` }

/** The seeded titles are "The collected works, volume <i>": these texts match ~10 and ~111,111 of a million. */
const FEW = `volume ${Math.floor(BOOKS / 80)}`
const MANY = 'volume 1'
/** A scenario: its path; `next`: the second page (the first page's `Link`) is measured instead. */
interface Scenario {
  name: string
  path: string
  target?: number
  next?: boolean
}
const scenarios: Scenario[] = [
  { name: `q="${FEW}" (quoted phrase, ~10 books), first page`, path: `/books?q=${encodeURIComponent(`"${FEW}"`)}&limit=20`, target: 20 },
  { name: `q=${FEW.replace(' ', '+')} (two terms, ~10 books), first page`, path: `/books?q=${encodeURIComponent(FEW)}&limit=20`, target: 20 },
  { name: `title=${FEW}, first page`, path: `/books?title=${encodeURIComponent(FEW)}&limit=20` },
  { name: 'q=the (every book), first page', path: '/books?q=the&limit=20', target: 20 },
  { name: 'q=the (every book), second page', path: '/books?q=the&limit=20', target: 20, next: true },
  { name: 'q=volume (every book), first page', path: '/books?q=volume&limit=20', target: 20 },
  { name: `q="${MANY}" (~11 % of the books), first page`, path: `/books?q=${encodeURIComponent(`"${MANY}"`)}&limit=20`, target: 30 },
  { name: `q="${MANY}" (~11 % of the books), second page`, path: `/books?q=${encodeURIComponent(`"${MANY}"`)}&limit=20`, target: 30, next: true },
  { name: `title=${MANY}, first page`, path: `/books?title=${encodeURIComponent(MANY)}&limit=20` },
  { name: 'q=colected (one edit of a word of every book), first page', path: '/books?q=colected&limit=20', target: 50 },
  { name: 'q=e (one character), first page', path: '/books?q=e&limit=20', target: 50 }
]

/** Connections repeating the costliest search at once in {@link underLoad}. */
const LOAD_SEARCHERS = 20
const LOAD_SECONDS = Number(process.env.SEARCH_LOAD_SECONDS ?? 15)
/**
 * The read those connections repeat: the broadest search by default; `SEARCH_LOAD_PATH` names
 * another, e.g. `/books?title=zzqq&limit=20`, a substring filter that no book matches.
 */
const LOAD_PATH = process.env.SEARCH_LOAD_PATH ?? '/books?q=e&limit=20'

/** What {@link underLoad} saw. */
interface LoadReport {
  searches: { answered: number; refused: number }
  normal: NormalClientFigures
  writesPerSecond: number
  writesAlonePerSecond: number
  peakRssMb: number
}

/**
 * `POST /book` on 4 keep-alive connections, each one request at a time, for {@link LOAD_SECONDS},
 * from wrk ({@link runWrk}): how many were stored (201).
 */
async function writeFor(url: string, directory: string): Promise<number> {
  const script = join(directory, 'post-book.lua')
  writeFileSync(
    script,
    `wrk.method = "POST"\nwrk.headers["content-type"] = "application/json"\nwrk.body = '{"title":"Load write","author":"Writer","year":2000}'\n`
  )
  const { answered } = await runWrk(['-c4', '-s', script, `${url}/book`])
  return answered
}

/**
 * docs/benchmarks.md "Search", under load: {@link LOAD_SEARCHERS} connections repeat {@link LOAD_PATH}
 * (`q=e&limit=20`: a one-character term in every book, which no title word starts with; {@link searchLoad}) for
 * {@link LOAD_SECONDS}, beside the normal client of bench/normal-client.ts (a process of its own)
 * and 4 writers ({@link writeFor}); then the 4 writers alone for as long.
 */
async function underLoad(service: Target, directory: string): Promise<LoadReport> {
  const rss = sampleResident(service.child.pid!)
  const normal = startNormalClient(service.port, token)
  const [writes, searches] = await Promise.all([writeFor(service.url, directory), searchLoad(service.url)])
  const figures = await normal.stop()
  const peakRssMb = rss.stop() / 1024 / 1024
  const writesAlone = await writeFor(service.url, directory)
  return {
    searches,
    normal: figures,
    writesPerSecond: writes / LOAD_SECONDS,
    writesAlonePerSecond: writesAlone / LOAD_SECONDS,
    peakRssMb
  }
}

/**
 * {@link LOAD_SEARCHERS} connections repeating {@link LOAD_PATH} for {@link LOAD_SECONDS}, from wrk
 * (`/usr/bin/wrk`, `WRK` overrides): a process of its own written in C, so that the searches'
 * client does not take the writers' share of the benchmark's event loop, nor much of the cores.
 */
function searchLoad(url: string): Promise<{ answered: number; refused: number }> {
  return runWrk([`-c${LOAD_SEARCHERS}`, `${url}${LOAD_PATH}`])
}

/** wrk with `args` (connections, script, URL) for {@link LOAD_SECONDS} on one thread, with the bearer token: its 2xx and other answers. */
async function runWrk(args: string[]): Promise<{ answered: number; refused: number }> {
  const output = await new Promise<string>((resolve, reject) => {
    const all = ['-t1', `-d${LOAD_SECONDS}s`, '-H', `authorization: Bearer ${token}`, ...args]
    const child = spawn(process.env.WRK ?? '/usr/bin/wrk', all, { stdio: ['ignore', 'pipe', 'inherit'] })
    let text = ''
    child.stdout.on('data', (chunk: Buffer) => (text += chunk.toString()))
    child.on('error', reject)
    child.on('exit', (code) => (code === 0 ? resolve(text) : reject(new Error(`wrk exited ${code}: ${text}`))))
  })
  const requests = Number(/(\d+) requests in/.exec(output)?.[1] ?? NaN)
  const refused = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(output)?.[1] ?? 0)
  return { answered: requests - refused, refused }
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!

/** Longest a latency scenario runs (a slow one then has fewer than `REQUESTS` requests; at least 10). */
const SCENARIO_BUDGET_MS = Number(process.env.SEARCH_SCENARIO_SECONDS ?? 20) * 1000

/** The path of the page after the first of `path` (its `Link: rel="next"`). */
async function secondPage(url: string, path: string): Promise<string> {
  const response = await fetch(`${url}${path}`, { headers })
  await response.arrayBuffer()
  const link = /^<([^>]+)>; rel="next"$/.exec(response.headers.get('link') ?? '')
  if (!link) throw new Error(`${path}: no next page`)
  return link[1]!
}

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
  load: LoadReport
}

async function benchEngine(engine: Engine): Promise<EngineReport | undefined> {
  const directory = mkdtempSync(join(tmpdir(), 'book-search-bench-'))
  let databaseUrl = join(directory, 'books.db')
  let drop = async () => {}
  let service: Target | undefined
  try {
    const seedStart = performance.now()
    if (engine === 'sqlite') {
      copyFileSync(await cachedSqlite(), databaseUrl)
    } else {
      const database = await copyOfCachedPostgres(directory)
      if ('skip' in database) {
        console.log(database.skip)
        return undefined
      }
      databaseUrl = database.url
      drop = database.drop
    }
    const seedSeconds = (performance.now() - seedStart) / 1000
    console.log(`${engine}: ${BOOKS.toLocaleString('en')} books ready in ${seedSeconds.toFixed(0)} s`)

    const plans = await queryPlans(engine, databaseUrl)
    const indexBytes = await indexSize(engine, databaseUrl)
    service = await startService({ directory, databaseUrl, secret: SECRET, env: { LOG_LEVEL: 'warn' }, ...(ENTRY && { entry: ENTRY }) })
    const latencies = []
    for (const scenario of scenarios) {
      const measured = await latency(service.url, scenario.next ? await secondPage(service.url, scenario.path) : scenario.path)
      latencies.push({ name: scenario.name, target: scenario.target, ...measured })
      console.log(`${engine}: ${scenario.name}: p50 ${measured.p50.toFixed(1)} ms, p95 ${measured.p95.toFixed(1)} ms`)
    }
    const load = await underLoad(service, directory)
    console.log(`${engine}: under load ${JSON.stringify(load)}`)
    const withIndex = await writes(service.url)
    await service.stop()
    await dropIndex(engine, databaseUrl)
    service = await startService({ directory, databaseUrl, secret: SECRET, env: { LOG_LEVEL: 'warn' }, ...(ENTRY && { entry: ENTRY }) })
    const withoutIndex = await writes(service.url)
    console.log(`${engine}: writes with the index ${JSON.stringify(withIndex)}, without ${JSON.stringify(withoutIndex)}`)
    return { engine, seedSeconds, latencies, withIndex, withoutIndex, indexBytes, plans, load }
  } finally {
    await service?.stop()
    await drop()
    rmSync(directory, { recursive: true, force: true })
  }
}

/** Where seeded databases are kept between runs, by number of books and latest migration. */
const CACHE = join(homedir(), '.cache', 'book-service')
const SEEDED = `search_${BOOKS}_${MIGRATION_NAMES.at(-1)!.slice(0, 4)}`

/** The path of the cached seeded SQLite database, seeded first when missing. */
async function cachedSqlite(): Promise<string> {
  const path = join(CACHE, `${SEEDED}.db`)
  if (existsSync(path)) return path
  mkdirSync(CACHE, { recursive: true })
  const partial = `${path}.partial`
  rmSync(partial, { force: true })
  await seedSqlite(partial, BOOKS)
  renameSync(partial, path)
  return path
}

/**
 * A new PostgreSQL database copied from the cached seeded one (`CREATE DATABASE … TEMPLATE`),
 * which is made first when missing (migrated by the service, then seeded).
 */
async function copyOfCachedPostgres(directory: string): Promise<{ url: string; drop: () => Promise<void> } | { skip: string }> {
  const admin = new pg.Client({ connectionString: POSTGRES_ADMIN_URL })
  try {
    await admin.connect()
  } catch (error) {
    return { skip: `PostgreSQL not usable at ${POSTGRES_ADMIN_URL} (${(error as Error).message})` }
  }
  try {
    const urlOf = (name: string) => Object.assign(new URL(POSTGRES_ADMIN_URL), { pathname: `/${name}` }).toString()
    const { rowCount } = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [SEEDED])
    if (rowCount === 0) {
      const partial = `${SEEDED}_partial`
      await admin.query(`DROP DATABASE IF EXISTS ${partial} WITH (FORCE)`)
      await admin.query(`CREATE DATABASE ${partial}`)
      // The service migrates the empty database, then the books are inserted.
      const first = await startService({ directory, databaseUrl: urlOf(partial), secret: SECRET, env: { LOG_LEVEL: 'warn' } })
      await first.stop()
      await seedPostgres(urlOf(partial), BOOKS)
      await admin.query(`ALTER DATABASE ${partial} RENAME TO ${SEEDED}`)
    }
    const name = `books_bench_${Math.random().toString(16).slice(2, 10)}`
    await admin.query(`CREATE DATABASE ${name} TEMPLATE ${SEEDED}`)
    return {
      url: urlOf(name),
      drop: async () => {
        const client = new pg.Client({ connectionString: POSTGRES_ADMIN_URL })
        await client.connect()
        await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).finally(() => client.end())
      }
    }
  } finally {
    await admin.end()
  }
}

/** The plan of each search scenario's candidate statement (EXPLAIN QUERY PLAN / EXPLAIN ANALYZE). */
async function queryPlans(engine: Engine, url: string): Promise<string[]> {
  const plans: string[] = []
  for (const q of [`"${FEW}"`, `"${MANY}"`]) {
    const search = parseSearch(q)!
    const { sql, parameters } = await fewCandidatesStatement(engine, indexPieces(search), FEW_CANDIDATES + 1)
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

/** The bytes of the search index: SQLite the FTS5 table's shadow tables (dbstat), PostgreSQL its two GIN indexes; both with `title_word_starts` (0015). */
async function indexSize(engine: Engine, url: string): Promise<number> {
  if (engine === 'sqlite') {
    const db = new Database(url, { readonly: true })
    const { bytes } = db.prepare("SELECT sum(pgsize) AS bytes FROM dbstat WHERE name LIKE 'book_search%' OR name = 'title_word_starts'").get() as { bytes: number }
    db.close()
    return bytes
  }
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  const { rows } = await client.query<{ bytes: string }>(
    "SELECT sum(pg_relation_size(c.oid)) AS bytes FROM pg_class c WHERE c.relname IN ('books_title_search_trgm', 'books_author_search_trgm', 'title_word_starts', 'title_word_starts_pkey')"
  )
  await client.end()
  return Number(rows[0]!.bytes)
}

/** Removes what keeps the search indexes in step with the writes (0009's, 0013's and 0015's), for the "without the index" run. */
async function dropIndex(engine: Engine, url: string): Promise<void> {
  if (engine === 'sqlite') {
    const db = new Database(url)
    db.exec(`DROP TRIGGER book_search_insert; DROP TRIGGER book_search_update; DROP TRIGGER book_search_delete; DROP INDEX books_title_search_id;
      DROP TRIGGER books_title_word_starts_insert; DROP TRIGGER books_title_word_starts_update; DROP TRIGGER books_title_word_starts_delete`)
    db.close()
    return
  }
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  await client.query(`DROP INDEX books_title_search_trgm; DROP INDEX books_author_search_trgm; DROP INDEX books_title_search_id;
    DROP TRIGGER books_title_word_starts_insert ON books; DROP TRIGGER books_title_word_starts_update ON books; DROP TRIGGER books_title_word_starts_delete ON books`)
  await client.end()
}

const reports: EngineReport[] = []
for (const engine of ENGINES) {
  const report = await benchEngine(engine)
  if (report) reports.push(report)
}
const ms = (value: number) => value.toFixed(1)
const lines = [
  `## Search — ${new Date().toISOString()}, ${BOOKS.toLocaleString('en')} books${ENTRY ? `, build ${ENTRY}` : ''}`,
  '',
  `Node ${process.version}, ${cpus().length} CPUs, load average at the end ${loadavg()[0]!.toFixed(1)} (shared machine). ` +
    `Latency: ${REQUESTS} sequential requests per scenario; writes: autocannon, 8 connections, ${SECONDS} s each.`,
  ''
]
for (const report of reports) {
  lines.push(`### ${report.engine}`, '', `Ready (seeded, or copied from the cache) in ${report.seedSeconds.toFixed(0)} s; index size ${(report.indexBytes / 1024 / 1024).toFixed(1)} MB.`, '')
  lines.push('| Scenario | books | requests | p50 ms | p95 ms | target |', '|---|---:|---:|---:|---:|---|')
  for (const row of report.latencies) {
    const target = row.target === undefined ? '' : `p95 ≤ ${row.target} ms: ${row.p95 <= row.target ? 'met' : 'unmet'}`
    lines.push(`| ${row.name} | ${row.books} | ${row.requests} | ${ms(row.p50)} | ${ms(row.p95)} | ${target} |`)
  }
  const ratio = (key: 'post' | 'put') => report.withIndex[key] / report.withoutIndex[key]
  lines.push(
    '',
    `| Writes | with index req/s | without req/s | ratio (target ≥ 0.85) |`,
    '|---|---:|---:|---:|',
    `| POST /book | ${report.withIndex.post.toFixed(0)} | ${report.withoutIndex.post.toFixed(0)} | ${ratio('post').toFixed(2)} |`,
    `| PUT /book/{id} | ${report.withIndex.put.toFixed(0)} | ${report.withoutIndex.put.toFixed(0)} | ${ratio('put').toFixed(2)} |`,
    ''
  )
  const { load } = report
  const share = load.normal.normalOk / load.normal.normalTotal
  const kept = load.writesPerSecond / load.writesAlonePerSecond
  lines.push(
    `Under load (${LOAD_SEARCHERS} connections repeating \`${LOAD_PATH}\` for ${LOAD_SECONDS} s; answered ${load.searches.answered}, refused 503 ${load.searches.refused}):`,
    '',
    '| Under load | measured | target |',
    '|---|---:|---|',
    `| normal client (\`GET /book/1\`, a new connection 100 ms after each answer): answered | ${load.normal.normalOk} of ${load.normal.normalTotal} (${(share * 100).toFixed(1)} %) | ≥ 99 %: ${share >= 0.99 ? 'met' : 'unmet'} |`,
    `| normal client p99 (slowest) | ${load.normal.normalP99Ms} ms (${load.normal.normalSlowestMs} ms) | < 100 ms: ${load.normal.normalP99Ms < 100 ? 'met' : 'unmet'} |`,
    `| 4 writers, \`POST /book\` req/s (alone) | ${load.writesPerSecond.toFixed(0)} (${load.writesAlonePerSecond.toFixed(0)}) = ${kept.toFixed(2)} | ≥ 0.5: ${kept >= 0.5 ? 'met' : 'unmet'} |`,
    `| service peak RSS | ${load.peakRssMb.toFixed(0)} MB | < 500 MB: ${load.peakRssMb < 500 ? 'met' : 'unmet'} |`,
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
