/**
 * `npm run bench:paging`: latency of list pages at 1,000,000 books on SQLite.
 *
 * Seeds a SQLite file (the service's own migrations, then 1,000,000 rows written directly),
 * starts the built service (`dist/start.js`) as a real process on 127.0.0.1, and drives each
 * scenario with autocannon for a bounded time. A single-book GET runs in the same process and
 * run as the baseline, so the figures can be compared as ratios on a shared machine. Results
 * are printed and appended to docs/benchmarks-paging.md. Everything stops by itself.
 *
 * Environment: PAGING_BOOKS (default 1000000), PAGING_SECONDS per scenario (default 10),
 * PAGING_CONNECTIONS (default 4).
 */
import { spawn } from 'node:child_process'
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { cpus, loadavg, tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import autocannon from 'autocannon'
import { createSigner } from 'fast-jwt'
import { encodeCursor } from '../src/book/cursor.js'
import { SERVER_ENTRY, freePort } from './processes.js'
import { seedSqlite, seededBook } from './seed.js'

const BOOKS = Number(process.env.PAGING_BOOKS ?? 1_000_000)
const SECONDS = Number(process.env.PAGING_SECONDS ?? 10)
const CONNECTIONS = Number(process.env.PAGING_CONNECTIONS ?? 4)
const TARGET_P99_MS = 20
const SECRET = 'paging-benchmark-secret-0123456789abcdefghijklmnop'
const REPORT = new URL('../docs/benchmarks-paging.md', import.meta.url).pathname




/** A random integer in [low, high]. */
const between = (low: number, high: number) => low + Math.floor(Math.random() * (high - low + 1))

/** One scenario: a name, what it shows, and the path of each request (drawn anew per request). */
interface Scenario {
  name: string
  path: () => string
  /** Held to the p99 target ({@link TARGET_P99_MS}). */
  target: boolean
}

const deepTitle = (i: number) => encodeCursor('title', 'title', { id: i, ...seededBook(i) })

const scenarios: Scenario[] = [
  { name: 'baseline: GET /book/{id} (random id)', path: () => `/book/${between(1, BOOKS)}`, target: false },
  { name: 'first page: /books?limit=100', path: () => '/books?limit=100', target: false },
  {
    name: 'deep page by id: /books?limit=100&after=<random id in the last 10%>',
    path: () => `/books?limit=100&after=${between(Math.floor(BOOKS * 0.9), BOOKS - 100)}`,
    target: true
  },
  {
    name: 'deep page by title: /books?sort=title&limit=100&after=<cursor of a random book>',
    path: () => `/books?sort=title&limit=100&after=${deepTitle(between(1, BOOKS))}`,
    target: true
  },
  {
    name: 'filtered page: /books?author=<random "number NN">&limit=20 (substring matching ~1% of books)',
    path: () => `/books?author=${encodeURIComponent(`number ${between(10, 99)}`)}&limit=20`,
    target: true
  },
  {
    name: 'filtered page: /books?author=<random "number NNN">&limit=20 (substring matching 0.1% of books)',
    path: () => `/books?author=${encodeURIComponent(`number ${between(100, 996)}`)}&limit=20`,
    target: true
  },
  {
    name: 'filtered page: /books?year=<random year>&sort=-id&limit=20',
    path: () => `/books?year=${between(1800, 2024)}&sort=-id&limit=20`,
    target: true
  },
  {
    name: 'filtered deep page: /books?year_min=1900&year_max=1910&sort=year&limit=20&after=<cursor>',
    path: () => {
      const year = between(1900, 1910)
      const cursor = Buffer.from(JSON.stringify(['year', year, between(1, BOOKS)])).toString('base64url')
      return `/books?year_min=1900&year_max=1910&sort=year&limit=20&after=${cursor}`
    },
    target: true
  },
  {
    name: 'rare substring (no match, scans every title): /books?title=<absent>&limit=20',
    path: () => `/books?title=absent-${between(1, 1000)}&limit=20`,
    target: false
  },
  {
    name: 'count of a filter: /books?author=number 42&limit=1&count=true',
    path: () => `/books?author=${encodeURIComponent('number 42')}&limit=1&count=true`,
    target: false
  }
]

interface Result {
  name: string
  target: boolean
  requests: number
  rps: number
  p50: number
  p99: number
  max: number
  non2xx: number
}

async function run(url: string, token: string, scenario: Scenario): Promise<Result> {
  const result = await autocannon({
    url,
    connections: CONNECTIONS,
    duration: SECONDS,
    headers: { authorization: `Bearer ${token}` },
    requests: [{ method: 'GET', setupRequest: (request) => ({ ...request, path: scenario.path() }) }]
  })
  return {
    name: scenario.name,
    target: scenario.target,
    requests: result.requests.total,
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    max: result.latency.max,
    non2xx: result.non2xx + result.errors + result.timeouts
  }
}

async function main(): Promise<void> {
  if (!existsSync(SERVER_ENTRY)) throw new Error('dist/start.js is missing: run `npm run build` first')
  const directory = mkdtempSync(join(tmpdir(), 'book-paging-bench-'))
  const database = join(directory, 'books.db')
  const seedStart = performance.now()
  console.log(`seeding ${BOOKS.toLocaleString('en')} books…`)
  await seedSqlite(database, BOOKS)
  const seedSeconds = (performance.now() - seedStart) / 1000
  console.log(`seeded in ${seedSeconds.toFixed(1)} s`)

  const port = await freePort()
  const child = spawn(process.execPath, [SERVER_ENTRY], {
    cwd: directory,
    env: {
      PATH: process.env.PATH ?? '',
      HOST: '127.0.0.1',
      PORT: String(port),
      DATABASE_URL: database,
      SECRET_TOKEN: SECRET,
      AUTH_PASSWORD: 'paging-benchmark-password',
      LOG_LEVEL: 'warn'
    },
    stdio: ['ignore', 'inherit', 'inherit']
  })
  const url = `http://127.0.0.1:${port}`
  const results: Result[] = []
  try {
    const deadline = Date.now() + 60_000
    for (;;) {
      if (child.exitCode !== null) throw new Error(`service exited with ${child.exitCode}`)
      const ready = await fetch(`${url}/readyz`).then((response) => response.ok, () => false)
      if (ready) break
      if (Date.now() > deadline) throw new Error('service not ready within 60 s')
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    const token = createSigner({ key: SECRET, algorithm: 'HS256', expiresIn: 3_600_000 })({ sub: 'bench' })
    for (const scenario of scenarios) {
      // One request first: the scenario answers 200 (a broken URL would measure 400s).
      const probe = await fetch(`${url}${scenario.path()}`, { headers: { authorization: `Bearer ${token}` } })
      if (probe.status !== 200) throw new Error(`${scenario.name}: ${probe.status} ${await probe.text()}`)
      const result = await run(url, token, scenario)
      results.push(result)
      console.log(
        `${result.name}\n  ${result.rps.toFixed(0)} req/s, p50 ${result.p50} ms, p99 ${result.p99} ms, max ${result.max} ms` +
          (result.non2xx ? `, ${result.non2xx} errors/non-2xx` : '')
      )
    }
  } finally {
    child.kill('SIGTERM')
    await new Promise((resolve) => child.once('exit', resolve))
    rmSync(directory, { recursive: true, force: true })
  }

  const baseline = results[0]!
  const failed = results.filter((result) => result.target && (result.p99 >= TARGET_P99_MS || result.non2xx > 0))
  const lines = [
    '',
    `## ${new Date().toISOString()} — ${BOOKS.toLocaleString('en')} books, SQLite`,
    '',
    `Node ${process.version}, ${cpus().length} CPUs (load average at the end ${loadavg()[0]!.toFixed(1)}: ` +
      `the machine is shared, so compare the × baseline column across runs), autocannon ${CONNECTIONS} connections, ` +
      `${SECONDS} s per scenario, service as a real process on 127.0.0.1. Seeding took ${seedSeconds.toFixed(1)} s. ` +
      `Target: p99 < ${TARGET_P99_MS} ms for the scenarios marked ✱.`,
    '',
    '| Scenario | req/s | × baseline | p50 ms | p99 ms | max ms | errors |',
    '|---|---:|---:|---:|---:|---:|---:|',
    ...results.map(
      (result) =>
        `| ${result.target ? '✱ ' : ''}${result.name.replace(/\|/g, '\\|')} | ${result.rps.toFixed(0)} | ` +
        `${(result.rps / baseline.rps).toFixed(2)} | ${result.p50} | ${result.p99} | ${result.max} | ${result.non2xx} |`
    ),
    '',
    failed.length === 0
      ? `Every ✱ scenario within target (p99 < ${TARGET_P99_MS} ms).`
      : `Over target: ${failed.map((result) => result.name).join('; ')}.`,
    ''
  ]
  mkdirSync(dirname(REPORT), { recursive: true })
  if (!existsSync(REPORT)) writeFileSync(REPORT, '# Paging benchmark results (`npm run bench:paging`)\n')
  appendFileSync(REPORT, lines.join('\n'))
  console.log(`appended to ${REPORT}`)
  if (failed.length > 0) process.exitCode = 1
}

await main()
