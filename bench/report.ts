import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { cpus } from 'node:os'
import type { Measurement } from './load.js'

/** One line of the results: a scenario, where it ran, and its ratio to its baseline. */
export interface Row extends Measurement {
  scenario: string
  target: string
  baseline: string | undefined
  /** requests/s of the scenario ÷ requests/s of its baseline, measured just before it. */
  ratio: number | undefined
  /** requests/s of that baseline run. */
  baseline_rps?: number
  /** p99 latency of that baseline run, in ms. */
  baseline_p99_ms?: number
  /** requests/s of the Go peer under the same load, measured just before (when it was built). */
  peer_rps?: number
  /** requests/s of the scenario ÷ `peer_rps`. */
  peer_ratio?: number
}

const ROOT = new URL('..', import.meta.url).pathname
const DOC = `${ROOT}docs/benchmarks.md`
const START = '<!-- results:start (written by npm run bench; do not edit by hand) -->'
const END = '<!-- results:end -->'

/** A ratio as the report prints it, or `not run`. */
/** The middle value of `values` (the lower of the two middle ones for an even count); 0 when empty. */
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)] ?? 0
const times = (ratio: number | undefined) => (ratio === undefined ? 'not run' : `${ratio.toFixed(2)}×`)

/** The performance targets (docs/benchmarks.md), checked against a run: `[target, measured, met]`. */
function targets(rows: Row[], coldStartMs: number): Array<[string, string, boolean | undefined]> {
  const find = (name: string) => rows.find((row) => row.scenario === name)
  const get = find('sqlite get-book')
  const post = find('sqlite post-book')
  const list100 = find('sqlite list-100')
  const list10k = find('sqlite list-10000')
  const list1m = find('sqlite list-1000000')
  const pgGet = find('postgres get-book')
  const pgPost = find('postgres post-book')
  const atLeast = (value: number | undefined, bound: number) => (value === undefined ? undefined : value >= bound)
  const toSqlite = (pg: Row | undefined, sqlite: Row | undefined) => (pg && sqlite && sqlite.rps > 0 ? pg.rps / sqlite.rps : undefined)
  return [
    ['GET /book/{id} ≥ 1.5× the Go peer', times(get?.peer_ratio), atLeast(get?.peer_ratio, 1.5)],
    ['GET /book/{id} ≥ 0.6× the node:http ceiling', times(get?.ratio), atLeast(get?.ratio, 0.6)],
    ['POST /book (durable) ≥ 4× the Go peer (FULL sync)', times(post?.peer_ratio), atLeast(post?.peer_ratio, 4)],
    ['GET /books, 100 books ≥ 4× the Go peer', times(list100?.peer_ratio), atLeast(list100?.peer_ratio, 4)],
    ['PostgreSQL GET /book/{id} ≥ 0.6× SQLite', times(toSqlite(pgGet, get)), atLeast(toSqlite(pgGet, get), 0.6)],
    ['PostgreSQL POST /book ≥ 0.6× SQLite', times(toSqlite(pgPost, post)), atLeast(toSqlite(pgPost, post), 0.6)],
    ['Cold start to first authenticated 200 < 300 ms (existing database)', `${coldStartMs} ms`, coldStartMs < 300],
    // Against the list ceiling's run just before the service's (as every ratio), not the mean of its runs.
    ['GET /books, 10,000 books: p99 ≤ 1.1× the list ceiling\'s p99', list10k?.baseline_p99_ms !== undefined ? `${list10k.p99_ms} ms vs ${list10k.baseline_p99_ms} ms` : 'not run',
      list10k?.baseline_p99_ms !== undefined ? list10k.p99_ms <= list10k.baseline_p99_ms * 1.1 : undefined],
    ['GET /books, 1,000,000 books: peak RSS < 300 MB', list1m ? `${list1m.rss_mb} MB` : 'not run (quick mode)', list1m ? list1m.rss_mb < 300 && list1m.errors === 0 : undefined],
    ['Zero errors in every scenario', `${rows.reduce((sum, row) => sum + row.errors, 0)} errors`, rows.every((row) => row.errors === 0)]
  ]
}

function markdown(options: ReportOptions): string {
  const cpu = cpus()
  const lines = [
    `Run: ${new Date().toISOString()} (${options.quick ? 'quick' : 'full'} mode) — machine: ${cpu[0]?.model ?? 'unknown'} × ${cpu.length}, ` +
      `Node ${process.version}, ${options.connections} connections, ${options.warmup} s warm-up + ${options.duration} s per scenario, 127.0.0.1.`,
    '',
    '| Scenario | Target | req/s | p50 ms | p99 ms | max ms | errors | peak RSS MB (growth) | CPU µs/req | baseline req/s (run just before) | ratio | Go peer req/s | × Go peer |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...options.rows.map((row) =>
      `| ${row.scenario} | ${row.target} | ${row.rps} | ${row.p50_ms} | ${row.p99_ms} | ${row.max_ms} | ${row.errors} | ` +
        `${row.rss_mb} (+${row.rss_growth_mb}) | ${row.cpu_us} | ${row.baseline_rps ?? '—'} | ` +
        `${row.ratio === undefined ? '—' : `${row.ratio.toFixed(2)}× ${row.baseline}`} | ` +
        `${row.peer_rps ?? '—'} | ${row.peer_ratio === undefined ? '—' : `${row.peer_ratio.toFixed(2)}×`} |`
    ),
    '',
    `Cold start (spawn of \`node dist/start.js\` to the first authenticated 200 on GET /book/1, SQLite, on an existing ` +
      `database): **${median(options.restarts)} ms** (median of ${options.restarts.length} restarts on the 1,000-book set: ${options.restarts.join(', ')} ms). ` +
      `First start on a newly seeded database, which also stores the first admin and hashes its password (scrypt): ` +
      `median ${median(options.firstStarts)} ms (${options.firstStarts.join(', ')} ms).`,
    '',
    '| Target | Measured | Met |',
    '|---|---:|:---:|',
    ...targets(options.rows, median(options.restarts)).map(([name, value, met]) => `| ${name} | ${value} | ${met === undefined ? '—' : met ? 'yes' : '**no**'} |`),
    ...(options.notes.length > 0 ? ['', ...options.notes.map((note) => `- ${note}`)] : [])
  ]
  return lines.join('\n')
}

/** What {@link writeReport} writes. */
export interface ReportOptions {
  quick: boolean
  rows: Row[]
  /** Spawn-to-first-authenticated-200 times (ms) of restarts on an existing database. */
  restarts: number[]
  /** The same for first starts on a newly seeded database (they also hash the first admin's password). */
  firstStarts: number[]
  notes: string[]
  connections: number
  duration: number
  warmup: number
}

/**
 * Prints the Markdown table; writes `bench/results/latest.json` and the results section of
 * `docs/benchmarks.md` (full mode) or `bench/results/quick.json` (quick mode).
 *
 * @returns the files written.
 */
export function writeReport(options: ReportOptions): string[] {
  const table = markdown(options)
  console.log(`\n${table}\n`)
  const json = Object.fromEntries(
    options.rows.map((row) => [
      row.scenario,
      {
        rps: row.rps, p50_ms: row.p50_ms, p99_ms: row.p99_ms, max_ms: row.max_ms, errors: row.errors,
        rss_mb: row.rss_mb, rss_growth_mb: row.rss_growth_mb, cpu_us: row.cpu_us, baseline: row.baseline ?? null,
        baseline_rps: row.baseline_rps ?? null, ratio: row.ratio === undefined ? null : Number(row.ratio.toFixed(3)),
        peer_rps: row.peer_rps ?? null, peer_ratio: row.peer_ratio === undefined ? null : Number(row.peer_ratio.toFixed(3))
      }
    ])
  )
  mkdirSync(`${ROOT}bench/results`, { recursive: true })
  const jsonFile = `${ROOT}bench/results/${options.quick ? 'quick' : 'latest'}.json`
  writeFileSync(jsonFile, JSON.stringify({ cold_start_ms: median(options.restarts), restarts_ms: options.restarts, first_starts_ms: options.firstStarts, ...json }, null, 2) + "\n")
  if (options.quick) return [jsonFile]

  const previous = existsSync(DOC) ? readFileSync(DOC, 'utf8') : `# Benchmarks\n\n${START}\n${END}\n`
  const start = previous.indexOf(START)
  const end = previous.indexOf(END)
  const document = start >= 0 && end > start
    ? `${previous.slice(0, start + START.length)}\n${table}\n${previous.slice(end)}`
    : `${previous.trimEnd()}\n\n${START}\n${table}\n${END}\n`
  writeFileSync(DOC, document)
  return [jsonFile, DOC]
}
