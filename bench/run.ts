/**
 * `npm run bench [-- --quick]`: the benchmark of the book service against two baselines measured
 * in the same run (a bare `node:http` ceiling and a naive durable-write floor), on loopback only.
 * Everything it starts, it stops. Full mode writes `docs/benchmarks.md` (between its result
 * markers) and `bench/results/latest.json`; quick mode (under a minute) writes
 * `bench/results/quick.json` and prints the table; `--only <regexp>` runs the matching service
 * scenarios (each with its baseline) and writes nothing. Expects `npm run build` done (the npm script
 * runs it first).
 */
import { tmpdir } from 'node:os'
import { mkdtempSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { createSigner } from 'fast-jwt'
import { buildGoPeer, startGoPeer } from './go-peer.js'
import { measure, type Load, type Measurement } from './load.js'
import { startBaseline, startService, type Target } from './processes.js'
import { postgresWrites, writeRatios } from './postgres-writes.js'
import { writeReport, type Row } from './report.js'
import { createPostgresDatabase, seedPostgres, seedSqlite, seededBook } from './seed.js'

const { values: flags } = parseArgs({
  options: { quick: { type: 'boolean', default: false }, only: { type: 'string' } }
})
const quick = flags.quick
/** `--only <regexp>`: run only the service scenarios whose name matches (each with its baseline). */
const only = flags.only === undefined ? undefined : new RegExp(flags.only)
const wanted = (scenario: string) => only === undefined || only.test(scenario)
const CONNECTIONS = 50
const DURATION = quick ? 1.5 : 10
const WARMUP = quick ? 0.5 : 3

const SECRET = 'bench-secret-0123456789-abcdefghijklmnopqrstuvwxyz'
const token = createSigner({ key: SECRET, algorithm: 'HS256', expiresIn: 3_600_000 })({ sub: 'bench' })
const auth = { authorization: `Bearer ${token}` }

const directory = mkdtempSync(join(tmpdir(), 'book-bench-'))
const rows: Row[] = []
const started: Target[] = []
const notes: string[] = []

const randomId = (count: number) => 1 + Math.floor(Math.random() * count)
const newBook = JSON.stringify(seededBook(424242))

/** The scenario loads of the service, over a data set of `count` books (ids 1..count). */
const loads = {
  get: (count: number): Load => ({
    request: () => ({ method: 'GET', path: `/book/${randomId(count)}` }),
    headers: auth, connections: CONNECTIONS, duration: DURATION, warmup: WARMUP
  }),
  list: (): Load => ({
    request: () => ({ method: 'GET', path: '/books' }),
    headers: auth, connections: CONNECTIONS, duration: DURATION, warmup: WARMUP
  }),
  post: (): Load => ({
    request: () => ({ method: 'POST', path: '/book', body: newBook }),
    headers: auth, connections: CONNECTIONS, duration: DURATION, warmup: WARMUP
  }),
  put: (count: number): Load => ({
    request: () => ({ method: 'PUT', path: `/book/${randomId(count)}`, body: '{"title":"Retitled in place"}' }),
    headers: auth, connections: CONNECTIONS, duration: DURATION, warmup: WARMUP
  }),
  mixed: (count: number): Load => ({
    request: () =>
      Math.random() < 0.8
        ? { method: 'GET', path: `/book/${randomId(count)}` }
        : { method: 'POST', path: '/book', body: newBook },
    headers: auth, connections: CONNECTIONS, duration: DURATION, warmup: WARMUP
  })
}

/** The baseline servers, started once and measured right before each scenario they match. */
const baselines = new Map<string, { target: Target; load: Load; runs: Measurement[] }>()

function print(name: string, m: Measurement, suffix = ''): void {
  console.log(
    `${name.padEnd(28)} ${String(m.rps).padStart(7)} req/s  p50 ${m.p50_ms} ms  p99 ${m.p99_ms} ms  max ${m.max_ms} ms  ` +
      `errors ${m.errors}  rss ${m.rss_mb} MB (+${m.rss_growth_mb})  cpu ${m.cpu_us} µs/req${suffix}`
  )
}

/**
 * Measures `scenario` on `target`; with a `baseline`, measures that baseline with its own load
 * immediately before, so the ratio compares two runs seconds apart (the machine may be shared);
 * with a `peer` (the Go peer), measures it with the scenario's own load just before too.
 */
async function run(target: Target, scenario: string, baseline: string | undefined, load: Load, peer?: Target) {
  if (!wanted(scenario)) return
  let reference: Measurement | undefined
  if (baseline !== undefined) {
    const entry = baselines.get(baseline)!
    reference = await measure(entry.target, entry.load)
    entry.runs.push(reference)
    print(`  ${baseline}`, reference)
  }
  let peerRun: Measurement | undefined
  if (peer !== undefined) {
    peerRun = await measure(peer, load)
    rows.push({ scenario: `${scenario} (Go peer)`, target: peer.name, baseline: undefined, ratio: undefined, ...peerRun })
    print(`  Go peer`, peerRun)
  }
  const m = await measure(target, load)
  const row: Row = {
    scenario, target: target.name, baseline, ...m,
    ratio: reference && reference.rps > 0 ? m.rps / reference.rps : undefined,
    baseline_rps: reference?.rps,
    baseline_p99_ms: reference?.p99_ms,
    peer_rps: peerRun?.rps,
    peer_ratio: peerRun && peerRun.rps > 0 ? m.rps / peerRun.rps : undefined
  }
  rows.push(row)
  const ratios = [
    row.ratio === undefined ? '' : ` ratio ${row.ratio.toFixed(2)}× ${baseline}`,
    row.peer_ratio === undefined ? '' : ` ${row.peer_ratio.toFixed(2)}× Go peer`
  ]
  print(scenario, m, ratios.join(''))
}

/** The Go peer with `count` seeded books, when it could be built (see bench/go-peer.ts). */
async function goPeer(count: number): Promise<Target | undefined> {
  if ('skip' in peerBuild) return undefined
  const target = await startGoPeer({ directory: mkdtempSync(join(directory, `go-peer-${count}-`)), secret: SECRET, headers: auth, count })
  started.push(target)
  return target
}

/** The mean of several measurements of one baseline (peaks and errors: the worst). */
function mean(runs: Measurement[]): Measurement {
  const average = (pick: (m: Measurement) => number) => Math.round((runs.reduce((sum, m) => sum + pick(m), 0) / runs.length) * 10) / 10
  return {
    rps: Math.round(average((m) => m.rps)), p50_ms: average((m) => m.p50_ms), p99_ms: average((m) => m.p99_ms),
    max_ms: Math.max(...runs.map((m) => m.max_ms)), errors: runs.reduce((sum, m) => sum + m.errors, 0),
    non2xx: runs.reduce((sum, m) => sum + m.non2xx, 0), requests: runs.reduce((sum, m) => sum + m.requests, 0),
    rss_mb: Math.max(...runs.map((m) => m.rss_mb)), rss_growth_mb: Math.max(...runs.map((m) => m.rss_growth_mb)),
    cpu_us: Math.round(average((m) => m.cpu_us))
  }
}

async function stop(target: Target): Promise<void> {
  const code = await target.stop()
  started.splice(started.indexOf(target), 1)
  if (code !== 0) notes.push(`${target.name} exited with ${code} on SIGTERM`)
}

/**
 * Starts the service on `databaseUrl`, ready when an authenticated GET /book/1 answers 200, and
 * adds its spawn-to-ready time (ms) to `startTimes`.
 */
async function service(databaseUrl: string, name: string, dataDirectory: string, startTimes = firstStarts): Promise<Target> {
  const target = await startService({
    directory: dataDirectory, databaseUrl, secret: SECRET, name, readyPath: '/book/1', readyHeaders: auth
  })
  started.push(target)
  startTimes.push(Math.round(target.startMs))
  return target
}

/** Spawn-to-first-authenticated-200 times (ms) of the SQLite starts on a newly seeded database. */
const firstStarts: number[] = []
/** The same for restarts on a database the service has used (the cold start target of docs/benchmarks.md). */
const restarts: number[] = []

async function sqliteDataSet(count: number): Promise<{ url: string; dir: string }> {
  const dir = mkdtempSync(join(directory, `sqlite-${count}-`))
  const url = join(dir, 'books.db')
  await seedSqlite(url, count)
  return { url, dir }
}

/** Whether the Go peer could be built (built once, before the first scenario). */
let peerBuild: { ok: true } | { skip: string } = { skip: 'not built yet' }

async function main(): Promise<void> {
  peerBuild = buildGoPeer()
  if ('skip' in peerBuild) {
    console.log(`Go peer skipped: ${peerBuild.skip}`)
    notes.push(`Go peer skipped: ${peerBuild.skip}`)
  }
  console.log(`book-service benchmark (${quick ? 'quick' : 'full'}): ${CONNECTIONS} connections, ${WARMUP} s warm-up + ${DURATION} s per scenario`)

  // Baselines, in this run, on this machine, each measured next to the scenarios it matches.
  const baselineLoads: Array<[string, Load]> = [
    ['ceiling', { ...loads.get(1000), headers: {} }],
    ['ceiling list-100', { ...loads.list(), headers: {} }],
    ['ceiling list-10000', { ...loads.list(), headers: {} }],
    ['floor', loads.post()]
  ]
  for (const [name, load] of baselineLoads) {
    const target = await startBaseline(name === 'floor' ? 'floor' : name === 'ceiling' ? 'ceiling' : name.slice(8), directory)
    started.push(target)
    baselines.set(name, { target, load, runs: [] })
  }

  // SQLite: 1,000 books for the single-book reads and the writes.
  let set = await sqliteDataSet(1000)
  let sqlite = await service(set.url, 'service (SQLite)', set.dir)
  let peer = await goPeer(1000)
  await run(sqlite, 'sqlite get-book', 'ceiling', loads.get(1000), peer)
  if (!quick) await run(sqlite, 'sqlite put-book', 'floor', loads.put(1000), peer)
  await run(sqlite, 'sqlite post-book', 'floor', loads.post(), peer)
  if (!quick) await run(sqlite, 'sqlite mixed-80-20', 'floor', loads.mixed(1000), peer)
  await stop(sqlite)
  if (peer) await stop(peer)
  // Cold start as the target defines it: on an existing database (its first admin already stored).
  for (let start = 0; start < 5; start++) await stop(await service(set.url, 'service (SQLite)', set.dir, restarts))

  for (const count of [100, 10_000]) {
    set = await sqliteDataSet(count)
    sqlite = await service(set.url, 'service (SQLite)', set.dir)
    peer = count === 100 ? await goPeer(count) : undefined
    await run(sqlite, `sqlite list-${count}`, `ceiling list-${count}`, loads.list(), peer)
    await stop(sqlite)
    if (peer) await stop(peer)
  }

  if (!quick && wanted('sqlite list-1000000')) {
    const seeding = performance.now()
    set = await sqliteDataSet(1_000_000)
    console.log(`seeded 1,000,000 books in ${Math.round(performance.now() - seeding)} ms`)
    sqlite = await service(set.url, 'service (SQLite)', set.dir)
    // Each response is ~75 MB of JSON: a fixed number of whole lists, a few at a time.
    await run(sqlite, 'sqlite list-1000000', undefined, {
      ...loads.list(), connections: 4, amount: 8, warmup: 0, timeout: 120
    })
    await stop(sqlite)
  }

  // PostgreSQL, when a server is reachable and the service accepts a postgres URL.
  const database = wanted('postgres') ? await createPostgresDatabase() : { skip: 'not selected by --only' }
  if ('skip' in database) {
    console.log(`PostgreSQL scenarios skipped: ${database.skip}`)
    notes.push(`PostgreSQL scenarios skipped: ${database.skip}`)
  } else {
    try {
      const dir = mkdtempSync(join(directory, 'postgres-'))
      let postgres: Target | undefined
      try {
        postgres = await startService({ directory: dir, databaseUrl: database.url, secret: SECRET, name: 'service (PostgreSQL)' })
        started.push(postgres)
      } catch (error) {
        const reason = `the service did not start on PostgreSQL (${(error as Error).message.split('\n')[0]})`
        console.log(`PostgreSQL scenarios skipped: ${reason}`)
        notes.push(`PostgreSQL scenarios skipped: ${reason}`)
      }
      if (postgres) {
        await seedPostgres(database.url, 1000)
        await run(postgres, 'postgres get-book', 'ceiling', loads.get(1000))
        if (!quick) await run(postgres, 'postgres put-book', 'floor', loads.put(1000))
        if (!quick) await run(postgres, 'postgres post-book', 'floor', loads.post())
        if (!quick) await run(postgres, 'postgres mixed-80-20', 'floor', loads.mixed(1000))
        for (const count of quick ? [] : [100, 10_000]) {
          await seedPostgres(database.url, count)
          await run(postgres, `postgres list-${count}`, `ceiling list-${count}`, loads.list())
        }
        await stop(postgres)
      }
    } finally {
      await database.drop()
    }
  }

  // PostgreSQL writes with wrk, against the plain pooled server in the same run (bench/postgres-writes.ts).
  if (wanted('postgres writes')) {
    const writes = await postgresWrites({ directory, secret: SECRET, token, seconds: quick ? 3 : 10 })
    if (typeof writes === 'string') {
      console.log(`PostgreSQL write scenarios skipped: ${writes}`)
      notes.push(`PostgreSQL write scenarios skipped: ${writes}`)
    } else {
      for (const line of writeRatios(writes)) {
        console.log(line)
        notes.push(line)
      }
    }
  }

  if (only !== undefined) {
    console.log('--only: partial run, no results written')
    return
  }
  for (const entry of baselines.values()) await stop(entry.target)
  const baselineRows: Row[] = [...baselines].flatMap(([name, entry]) =>
    entry.runs.length === 0 ? [] : [{ scenario: name, target: name, baseline: undefined, ratio: undefined, ...mean(entry.runs) }]
  )
  rows.unshift(...baselineRows)
  console.log(`restarts (spawn → first authenticated 200): ${restarts.join(', ')} ms; first starts on a new database: ${firstStarts.join(', ')} ms`)
  const file = writeReport({ quick, rows, restarts, firstStarts, notes, connections: CONNECTIONS, duration: DURATION, warmup: WARMUP })
  console.log(`written: ${file.join(', ')}`)
  const failed = rows.filter((row) => row.errors > 0)
  if (failed.length > 0) {
    console.error(`errors in: ${failed.map((row) => row.scenario).join(', ')}`)
    process.exitCode = 1
  }
}

try {
  await main()
} finally {
  for (const target of [...started]) await target.stop()
  rmSync(directory, { recursive: true, force: true })
}
