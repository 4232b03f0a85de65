/**
 * `npm run bench:web`: what the web page weighs and how soon it shows a list of 100 books.
 *
 * - Weight: the gzip size of every script and style sheet the build wrote (`dist/web/assets`,
 *   the `.gz` files the service sends), in total and for a first visit (what the browser fetched
 *   to show the books: the Resource Timing API's encoded body sizes).
 * - First render: the service started on a new SQLite database holding 100 books; headless
 *   Debian chromium opens `/#/books?limit=100` already signed in (the token in sessionStorage, as
 *   after a sign-in) and the time is the page's `book-list-rendered` mark: from the start of the
 *   navigation to the first table of books on screen. Cold: a new browser context each run (no
 *   cache); warm: a reload in the same context (assets from the cache). The median of RUNS runs.
 *
 * Writes the figures into docs/benchmarks.md between its markers. A benchmark, not a test: run
 * it on a quiet machine.
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { cpus, tmpdir } from 'node:os'
import { join } from 'node:path'
import { createSigner } from 'fast-jwt'
import type { BrowserContext } from 'playwright-core'
import { startService } from '../bench/processes.js'
import { seedSqlite } from '../bench/seed.js'
import { launchBrowser } from './test/support/browser.js'

const RUNS = Number(process.env.WEB_BENCH_RUNS ?? 9)
const BOOKS = 100
const ASSETS = new URL('../dist/web/assets/', import.meta.url).pathname
const DOC = new URL('../docs/benchmarks.md', import.meta.url).pathname
const START = '<!-- web-page:start (written by npm run bench:web; do not edit by hand) -->'
const END = '<!-- web-page:end -->'
const SECRET = 'bench-web-page-secret-0123456789abcdefghijklmnopqrstuvwxyz'

const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!

/** The gzip sizes of the built scripts and style sheets, by name. */
function builtWeights(): { name: string; bytes: number }[] {
  return readdirSync(ASSETS)
    .filter((name) => /\.(js|css)\.gz$/.test(name))
    .map((name) => ({ name: name.replace(/\.gz$/, ''), bytes: statSync(join(ASSETS, name)).size }))
}

interface Visit {
  renderedMs: number
  firstPaintMs: number
  /** Bytes of scripts and styles fetched (encoded: gzipped on the wire; 0 from the cache). */
  assetBytes: number
}

/** Opens the list in `context` (a reload when `reload`) and reads the page's own timing. */
async function visit(context: BrowserContext, url: string, reload: boolean): Promise<Visit> {
  const page = context.pages()[0] ?? (await context.newPage())
  if (reload) await page.reload()
  else await page.goto(url)
  await page.waitForFunction(() => performance.getEntriesByName('book-list-rendered').length > 0)
  const rows = await page.locator('table.books tbody tr').count()
  if (rows !== BOOKS) throw new Error(`the list shows ${rows} books, not ${BOOKS}`)
  return page.evaluate(() => {
    const rendered = performance.getEntriesByName('book-list-rendered')[0]!.startTime
    const paint = performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? NaN
    const assets = (performance.getEntriesByType('resource') as PerformanceResourceTiming[]).filter((entry) => /\.(js|css)$/.test(entry.name))
    return { renderedMs: rendered, firstPaintMs: paint, assetBytes: assets.reduce((sum, entry) => sum + entry.encodedBodySize, 0) }
  })
}

const folder = mkdtempSync(join(tmpdir(), 'book-service-web-bench-'))
const databaseUrl = join(folder, 'books.db')
await seedSqlite(databaseUrl, BOOKS)
const service = await startService({ directory: folder, databaseUrl, secret: SECRET })
const browser = await launchBrowser()
const token = createSigner({ key: SECRET, algorithm: 'HS256', expiresIn: 3_600_000 })({ sub: 'admin', role: 'admin' })
const url = `${service.url}/#/books?limit=${BOOKS}`
const cold: Visit[] = []
const warm: Visit[] = []
try {
  // One visit first, not counted: the service's first answers and chromium's own start-up.
  for (let run = 0; run <= RUNS; run++) {
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } })
    await context.addInitScript((value) => sessionStorage.setItem('book-service.token', value), token)
    const first = await visit(context, url, false)
    const again = await visit(context, url, true)
    if (run > 0) {
      cold.push(first)
      warm.push(again)
    }
    await context.close()
  }
} finally {
  await browser.close()
  await service.stop()
  rmSync(folder, { recursive: true, force: true })
}

const weights = builtWeights()
const total = weights.reduce((sum, weight) => sum + weight.bytes, 0)
const firstVisit = median(cold.map((run) => run.assetBytes))
const lines = [
  `Run: ${new Date().toISOString()} — machine: ${cpus()[0]?.model ?? 'unknown'} × ${cpus().length}, Node ${process.version}, chromium ${browser.version()} (headless), ${RUNS} runs, median.`,
  '',
  '| Figure | Value | Target |',
  '|---|---|---|',
  `| Scripts and styles, gzipped, all (${weights.length} files) | ${kib(total)} | < 100 KB (${total < 100_000 ? 'met' : 'NOT met'}) |`,
  `| … fetched by a first visit to the books (import and export load later) | ${kib(firstVisit)} | |`,
  `| First render of ${BOOKS} books, cold (no cache) | ${median(cold.map((run) => run.renderedMs)).toFixed(0)} ms | < 1 s (${median(cold.map((run) => run.renderedMs)) < 1000 ? 'met' : 'NOT met'}) |`,
  `| First render of ${BOOKS} books, warm (assets cached) | ${median(warm.map((run) => run.renderedMs)).toFixed(0)} ms | |`,
  `| First contentful paint, cold | ${median(cold.map((run) => run.firstPaintMs)).toFixed(0)} ms | |`,
  '',
  `Files (gzipped): ${weights.map((weight) => `\`${weight.name}\` ${kib(weight.bytes)}`).join(', ')}.`,
  `Cold first renders (ms): ${cold.map((run) => run.renderedMs.toFixed(0)).join(', ')}.`
]
console.log(lines.join('\n'))
const doc = readFileSync(DOC, 'utf8')
const start = doc.indexOf(START)
const end = doc.indexOf(END)
if (start === -1 || end === -1) throw new Error(`docs/benchmarks.md has no ${START} … ${END} markers`)
writeFileSync(DOC, `${doc.slice(0, start + START.length)}\n${lines.join('\n')}\n${doc.slice(end)}`)
console.log('bench:web: wrote docs/benchmarks.md')
