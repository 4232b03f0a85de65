/**
 * `npm run bench:export`: the peak memory of `book-service export` over a large
 * catalogue, to show the export streams in bounded memory.
 *
 * Seeds a SQLite file with EXPORT_BOOKS books (default 1,000,000; the service's own migrations,
 * then rows written directly: bench/seed.ts), then runs the built command line
 * (`dist/book-service.js export`) once per format, writing to a file, and prints for each the books
 * written, the time taken and the peak resident set size (the process's own `maxRSS`, reported
 * as it exits). Everything is removed afterwards. A benchmark, not a test: run it on a quiet machine.
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { seedSqlite } from './seed.js'

const BOOKS = Number(process.env.EXPORT_BOOKS ?? 1_000_000)
const CLI_ENTRY = new URL('../dist/book-service.js', import.meta.url).pathname
/** Loaded into the measured process: reports its peak RSS (kB) on stderr as it exits. */
const REPORT_RSS = 'data:text/javascript,process.on("exit",()=>process.stderr.write(`maxrss_kb=${process.resourceUsage().maxRSS}\\n`))'

/** Runs `book-service export` and resolves with its peak RSS in MiB and its duration in seconds. */
function measureExport(databaseUrl: string, format: string, output: string): Promise<{ rssMiB: number; seconds: number }> {
  const started = performance.now()
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', REPORT_RSS, CLI_ENTRY, 'export', '--format', format, '--output', output], {
      env: { PATH: process.env.PATH ?? '', DATABASE_URL: databaseUrl },
      stdio: ['ignore', 'inherit', 'pipe']
    })
    let stderr = ''
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
    child.on('exit', (code) => {
      const rss = /maxrss_kb=(\d+)/.exec(stderr)
      if (code !== 0 || !rss) return reject(new Error(`export exited ${code}: ${stderr}`))
      resolve({ rssMiB: Number(rss[1]) / 1024, seconds: (performance.now() - started) / 1000 })
    })
  })
}

const folder = mkdtempSync(join(tmpdir(), 'book-service-export-'))
try {
  const database = join(folder, 'books.db')
  const seeding = performance.now()
  await seedSqlite(database, BOOKS)
  console.log(`seeded ${BOOKS.toLocaleString('en-US')} books in ${((performance.now() - seeding) / 1000).toFixed(1)} s (${(statSync(database).size / 2 ** 20).toFixed(0)} MiB)`)
  for (const format of ['ndjson', 'csv']) {
    const output = join(folder, `books.${format}`)
    const { rssMiB, seconds } = await measureExport(database, format, output)
    const size = statSync(output).size / 2 ** 20
    console.log(
      `export --format ${format}: ${BOOKS.toLocaleString('en-US')} books, ${size.toFixed(0)} MiB in ${seconds.toFixed(1)} s; peak RSS ${rssMiB.toFixed(0)} MiB`
    )
    rmSync(output)
  }
} finally {
  rmSync(folder, { recursive: true, force: true })
}
