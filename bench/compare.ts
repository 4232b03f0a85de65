/**
 * `npm run bench:compare -- <git ref> [--only <scenarios>] [--rounds n] [--seconds s] [--levels warn,info] [--this-node-options='<flags>']`:
 * this checkout's build against the build of another commit, both started side by side on
 * 127.0.0.1 and measured in turn in one run, so a change's cost shows as a ratio that survives a
 * shared, noisy machine (docs/benchmarks.md "Comparing two builds").
 *
 * The other commit is extracted with `git archive`, installed (`npm ci`) and built once into
 * `~/.cache/book-service/bench-compare/<sha>` (`BENCH_COMPARE_CACHE` overrides the folder); later
 * runs reuse it. Both builds are started the way `npm start` starts the service (`node
 * dist/start.js`, the same environment), at each of `--levels` (default `warn,info`: `info` is the
 * default configuration). Each build gets its own SQLite database, seeded with 1,000 books through
 * its own POST /book, so a ref whose schema or command line differs seeds itself.
 *
 * Scenarios (`--only` takes a comma-separated subset; default all):
 * - `post`: POST /book (durable), `put`: PUT /book/{random id of 1..1000} (a new title, no `If-Match`),
 *   `get`: GET /book/{random id of 1..1000}, `list`: GET /books?limit=100
 *   — wrk (`/usr/bin/wrk`, `WRK` overrides) `-t1 -c50` for `--seconds` (default 3) per build per round,
 *   after a 1 s warm-up of each; the ratio is this build's requests/s ÷ the ref's in the same round,
 *   and beside it the service's CPU time per request (all its threads; below 1 is cheaper);
 * - `cold-start`: spawn to the first authenticated 200 on GET /book/1 (polled every 2 ms), ratio of
 *   milliseconds (below 1 is faster), and the CPU time the process had used by then, which a
 *   loaded machine inflates far less than the wall time;
 * - `idle-rss`: resident set size 1 s after the port accepts a connection, before any request.
 *
 * `--postgres`: each build on a scratch PostgreSQL database of its own (`BENCH_POSTGRES_URL`, default
 * the local server) instead of a SQLite file; `cold-start` and `idle-rss` are then PostgreSQL's too.
 *
 * `--this-node-options=<flags>` gives Node.js flags to this build's processes only (space-separated,
 * e.g. `--this-node-options=--max-semi-space-size=16`; with `=`, as Node's argument parser takes no
 * separate value that starts with `-`): against the ref `HEAD`, it measures a runtime setting on
 * the same code.
 *
 * Every scenario runs `--rounds` (default 5, at least 5) rounds; the order of the two builds
 * alternates each round. Printed per scenario: each build's median, the median of the per-round
 * ratios this/ref, their range, and in how many rounds this build was better.
 */
import { execFileSync, spawn } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { connect } from 'node:net'
import { homedir, loadavg, tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { parseArgs } from 'node:util'
import { createSigner } from 'fast-jwt'
import { cpuMilliseconds, freePort, residentBytes, SERVER_ENTRY, startService, type Target } from './processes.js'
import { seededBook } from './seeded-book.js'
import { createPostgresDatabase } from './seed.js'
import type { ScratchDatabase } from '../test/support/scratch-database.js'

const ROOT = new URL('..', import.meta.url).pathname
const SCENARIOS = ['post', 'put', 'get', 'list', 'cold-start', 'idle-rss'] as const
type Scenario = (typeof SCENARIOS)[number] | 'cold-start-cpu' | 'post-cpu' | 'put-cpu' | 'get-cpu' | 'list-cpu'
const BOOKS = 1000
const SECRET = 'bench-secret-0123456789-abcdefghijklmnopqrstuvwxyz'
const TOKEN = createSigner({ key: SECRET, algorithm: 'HS256', expiresIn: 3_600_000 })({ sub: 'bench' })
const WRK = process.env.WRK ?? '/usr/bin/wrk'

const { values: flags, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    only: { type: 'string' },
    rounds: { type: 'string', default: '5' },
    seconds: { type: 'string', default: '3' },
    levels: { type: 'string', default: 'warn,info' },
    postgres: { type: 'boolean', default: false },
    'this-node-options': { type: 'string', default: '' }
  }
})
const usage = "usage: npm run bench:compare -- <git ref> [--only post,put,get,list,cold-start,idle-rss] [--rounds n] [--seconds s] [--levels warn,info] [--postgres] [--this-node-options='<flags>']"
if (positionals.length !== 1) throw new Error(usage)
const chosen = (flags.only ?? SCENARIOS.join(',')).split(',').map((name) => name.trim()) as Scenario[]
for (const name of chosen) {
  if (!(SCENARIOS as readonly string[]).includes(name)) throw new Error(`unknown scenario ${name}; ${usage}`)
}
const rounds = Math.max(5, Number(flags.rounds))
const seconds = Number(flags.seconds)
const levels = flags.levels.split(',').map((level) => level.trim())

/** A built service: where its entry is and what to call it. */
interface Build {
  label: string
  entry: string
  /** Node.js flags its processes are started with. */
  nodeOptions: string[]
}

const git = (...args: string[]) => execFileSync('git', args, { cwd: ROOT, encoding: 'utf8' }).trim()

/**
 * The build of commit `sha`, made once into the cache folder: `git archive` into `<sha>.partial`,
 * `npm ci`, `npm run build`, then renamed to `<sha>`, so a folder named by the commit is always
 * a finished build.
 */
function refBuild(ref: string): Build {
  const sha = git('rev-parse', '--verify', `${ref}^{commit}`)
  const cache = process.env.BENCH_COMPARE_CACHE ?? join(homedir(), '.cache', 'book-service', 'bench-compare')
  const folder = join(cache, sha)
  if (!existsSync(join(folder, 'dist', 'start.js'))) {
    const partial = `${folder}.partial`
    rmSync(partial, { recursive: true, force: true })
    mkdirSync(partial, { recursive: true })
    console.log(`building ${ref} (${sha.slice(0, 7)}) in ${folder} (once)`)
    execFileSync('sh', ['-c', `git archive ${sha} | tar -x -C '${partial}'`], { cwd: ROOT, stdio: 'inherit' })
    // This Node.js first on PATH: the ref's native modules are installed for the Node that runs both builds.
    const env = { ...process.env, PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}` }
    execFileSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: partial, env, stdio: 'inherit' })
    execFileSync('npm', ['run', 'build'], { cwd: partial, env, stdio: 'inherit' })
    renameSync(partial, folder)
  }
  return { label: `${ref} (${sha.slice(0, 7)})`, entry: join(folder, 'dist', 'start.js'), nodeOptions: [] }
}

/** The middle value of `values` (the mean of the two middle ones for an even count). */
const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2
}

const auth = { authorization: `Bearer ${TOKEN}` }

/** Stores the 1,000 seeded books through `target`'s own POST /book, 16 at a time: ids 1..1000 on an empty database. */
async function seed(target: Target): Promise<void> {
  let next = 1
  const worker = async () => {
    for (let i = next++; i <= BOOKS; i = next++) {
      const response = await fetch(`${target.url}/book`, {
        method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify(seededBook(i))
      })
      if (response.status !== 201) throw new Error(`seeding ${target.name}: POST /book answered ${response.status}: ${await response.text()}`)
    }
  }
  await Promise.all(Array.from({ length: 16 }, worker))
}

/** The wrk script of an HTTP scenario. */
function wrkScript(scenario: Scenario): string {
  const headers = `wrk.headers["Authorization"] = "Bearer ${TOKEN}"\nwrk.headers["Content-Type"] = "application/json"\n`
  switch (scenario) {
    case 'post':
      return `${headers}wrk.method = "POST"\nwrk.path = "/book"\nwrk.body = '${JSON.stringify(seededBook(424242))}'\n`
    case 'get':
      return `${headers}request = function() return wrk.format("GET", "/book/" .. math.random(1, ${BOOKS})) end\n`
    case 'put':
      return `${headers}request = function() return wrk.format("PUT", "/book/" .. math.random(1, ${BOOKS}), nil, '{"title":"Retitled in place"}') end\n`
    default:
      return `${headers}wrk.path = "/books?limit=100"\n`
  }
}

/** Runs wrk `-t1 -c50` on `target` for `duration` seconds; returns requests/s and the failed requests. */
async function wrk(target: Target, script: string, duration: number): Promise<{ rps: number; errors: number; cpuUs: number }> {
  const cpuBefore = cpuMilliseconds(target.child.pid!)
  const output = await new Promise<string>((resolve, reject) => {
    const child = spawn(WRK, ['-t1', '-c50', `-d${duration}s`, '-s', script, target.url], { stdio: ['ignore', 'pipe', 'inherit'] })
    let text = ''
    child.stdout.on('data', (chunk: Buffer) => (text += chunk.toString()))
    child.on('error', reject)
    child.on('exit', (code) => (code === 0 ? resolve(text) : reject(new Error(`wrk exited ${code}: ${text}`))))
  })
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(output)?.[1] ?? NaN)
  const non2xx = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(output)?.[1] ?? 0)
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(output)
  const errors = non2xx + (socket ? socket.slice(1).reduce((sum, value) => sum + Number(value), 0) : 0)
  const requests = Number(/(\d+) requests in/.exec(output)?.[1] ?? NaN)
  // Microseconds of the target's CPU time (all its threads) per request: a shared machine's other
  // work lowers requests/s far more than it changes this.
  const cpuUs = ((cpuMilliseconds(target.child.pid!) - cpuBefore) * 1000) / requests
  return { rps, errors, cpuUs }
}

/** Starts `build` on `database` at `level`, its log in `directory`. */
function start(build: Build, directory: string, database: string, level: string, ready?: 'first-read'): Promise<Target> {
  return startService({
    name: build.label, entry: build.entry, nodeOptions: build.nodeOptions, directory, databaseUrl: database, secret: SECRET,
    env: { LOG_LEVEL: level },
    ...(ready === 'first-read' ? { readyPath: '/book/1', readyHeaders: auth } : {})
  })
}

/** Resident set size (bytes) of `build` 1 s after its port first accepts a connection, before any request. */
async function idleResident(build: Build, directory: string, database: string, level: string): Promise<number> {
  const port = await freePort()
  const child = spawn(process.execPath, [...build.nodeOptions, build.entry], {
    env: {
      PATH: process.env.PATH ?? '', HOST: '127.0.0.1', PORT: String(port), DATABASE_URL: database,
      SECRET_TOKEN: SECRET, AUTH_PASSWORD: 'bench-password', LOG_LEVEL: level
    },
    stdio: 'ignore'
  })
  const exited = new Promise((resolve) => child.once('exit', resolve))
  try {
    const started = performance.now()
    for (;;) {
      const listening = await new Promise<boolean>((resolve) => {
        const socket = connect(port, '127.0.0.1', () => { socket.destroy(); resolve(true) })
        socket.on('error', () => resolve(false))
      })
      if (listening) break
      if (child.exitCode !== null || performance.now() - started > 20_000) throw new Error(`${build.label} did not listen`)
      await new Promise((resolve) => setTimeout(resolve, 5))
    }
    await new Promise((resolve) => setTimeout(resolve, 1000))
    return residentBytes(child.pid!)
  } finally {
    child.kill('SIGTERM')
    await exited
  }
}

/** One scenario at one `LOG_LEVEL`: each build's figure per round. */
interface Result {
  level: string
  scenario: Scenario
  unit: string
  /** Whether a larger figure is better (requests/s) or worse (ms, MB). */
  higherIsBetter: boolean
  mine: number[]
  reference: number[]
  errors: number
}

/** Builds the ref when needed, seeds both builds' databases, runs every chosen scenario at every level, prints the table. */
async function main(): Promise<void> {
  const reference = refBuild(positionals[0]!)
  const dirty = git('status', '--porcelain', '--untracked-files=no') !== ''
  const nodeOptions = flags['this-node-options'].split(' ').filter(Boolean)
  const mine: Build = {
    label: `this (${git('rev-parse', '--short', 'HEAD')}${dirty ? '+changes' : ''}${nodeOptions.length > 0 ? ` ${nodeOptions.join(' ')}` : ''})`,
    entry: SERVER_ENTRY,
    nodeOptions
  }
  const builds = [mine, reference]
  const directory = mkdtempSync(join(tmpdir(), 'book-compare-'))
  const databases = new Map<Build, { folder: string; database: string }>()
  const scratches: ScratchDatabase[] = []
  const results: Result[] = []
  console.log(`machine: ${loadavg().map((load) => load.toFixed(1)).join(' ')} load average; ${rounds} rounds; ${chosen.join(', ')}; LOG_LEVEL ${levels.join(', ')}`)
  try {
    for (const [index, build] of builds.entries()) {
      const folder = join(directory, `build-${index}`)
      mkdirSync(folder)
      let database = join(folder, 'books.db')
      if (flags.postgres) {
        const scratch = await createPostgresDatabase()
        if ('skip' in scratch) throw new Error(`--postgres: ${scratch.skip}`)
        scratches.push(scratch)
        database = scratch.url
      }
      const target = await start(build, folder, database, 'warn')
      try {
        await seed(target)
      } finally {
        await target.stop()
      }
      databases.set(build, { folder, database })
    }
    for (const level of levels) {
      const http = chosen.filter((name) => name === 'post' || name === 'put' || name === 'get' || name === 'list')
      if (http.length > 0) {
        const targets = new Map<Build, Target>()
        try {
          for (const build of builds) {
            const { folder, database } = databases.get(build)!
            targets.set(build, await start(build, folder, database, level))
          }
          for (const scenario of http) {
            const script = join(directory, `${scenario}.lua`)
            writeFileSync(script, wrkScript(scenario))
            const result: Result = { level, scenario, unit: 'req/s', higherIsBetter: true, mine: [], reference: [], errors: 0 }
            const cpu: Result = { level, scenario: `${scenario}-cpu`, unit: 'µs/req', higherIsBetter: false, mine: [], reference: [], errors: 0 }
            for (const build of builds) await wrk(targets.get(build)!, script, 1)
            for (let round = 0; round < rounds; round++) {
              for (const build of round % 2 === 0 ? builds : [...builds].reverse()) {
                const { rps, errors, cpuUs } = await wrk(targets.get(build)!, script, seconds)
                result.errors += errors
                ;(build === mine ? result.mine : result.reference).push(rps)
                ;(build === mine ? cpu.mine : cpu.reference).push(Math.round(cpuUs))
              }
            }
            results.push(result, cpu)
            print(result)
            print(cpu)
          }
        } finally {
          for (const target of targets.values()) await target.stop()
        }
      }
      if (chosen.includes('cold-start')) {
        const result: Result = { level, scenario: 'cold-start', unit: 'ms', higherIsBetter: false, mine: [], reference: [], errors: 0 }
        const cpu: Result = { level, scenario: 'cold-start-cpu', unit: 'ms', higherIsBetter: false, mine: [], reference: [], errors: 0 }
        for (let round = 0; round < rounds; round++) {
          for (const build of round % 2 === 0 ? builds : [...builds].reverse()) {
            const { folder, database } = databases.get(build)!
            const target = await start(build, folder, database, level, 'first-read')
            ;(build === mine ? result.mine : result.reference).push(Math.round(target.startMs))
            ;(build === mine ? cpu.mine : cpu.reference).push(cpuMilliseconds(target.child.pid!))
            await target.stop()
          }
        }
        results.push(result, cpu)
        print(result)
        print(cpu)
      }
      if (chosen.includes('idle-rss')) {
        const result: Result = { level, scenario: 'idle-rss', unit: 'MB', higherIsBetter: false, mine: [], reference: [], errors: 0 }
        for (let round = 0; round < rounds; round++) {
          for (const build of round % 2 === 0 ? builds : [...builds].reverse()) {
            const { database } = databases.get(build)!
            const bytes = await idleResident(build, directory, database, level)
            ;(build === mine ? result.mine : result.reference).push(Math.round(bytes / 1024 / 102.4) / 10)
          }
        }
        results.push(result)
        print(result)
      }
    }
  } finally {
    rmSync(directory, { recursive: true, force: true })
    for (const scratch of scratches) await scratch.drop().catch(() => {})
    // Also when a start failed (a loaded machine): the table of what was measured until then.
    console.log(`\nthis = ${mine.label}, ref = ${reference.label}; load average at the end ${loadavg().map((load) => load.toFixed(1)).join(' ')}\n`)
    console.log('| scenario | LOG_LEVEL | this (median) | ref (median) | this/ref (median) | range | this better in |')
    console.log('|---|---|---:|---:|---:|---|---|')
    for (const result of results) console.log(row(result))
  }
}

/** Each scenario's name in the table. */
const NAMES: Record<Scenario, string> = {
  post: '`POST /book` (durable)',
  put: '`PUT /book/{id}` (durable)',
  'put-cpu': 'CPU per `PUT /book/{id}`',
  get: '`GET /book/{id}`',
  list: '`GET /books?limit=100`',
  'cold-start': 'cold start to the first authenticated 200',
  'cold-start-cpu': 'CPU time used by then (10 ms ticks)',
  'post-cpu': 'CPU per `POST /book`',
  'get-cpu': 'CPU per `GET /book/{id}`',
  'list-cpu': 'CPU per `GET /books?limit=100`',
  'idle-rss': 'idle RSS'
}

/** This build's figure ÷ the ref's, round by round. */
function ratios(result: Result): number[] {
  return result.mine.map((value, index) => value / result.reference[index]!)
}

/** The table row of `result`: both medians, the median and range of the ratios, the rounds this build was better in. */
function row(result: Result): string {
  const values = ratios(result)
  const better = values.filter((ratio) => (result.higherIsBetter ? ratio > 1 : ratio < 1)).length
  const format = (value: number) => `${Number(value.toPrecision(4))} ${result.unit}`
  return `| ${NAMES[result.scenario]} | ${result.level} | ${format(median(result.mine))} | ${format(median(result.reference))} | ` +
    `**${median(values).toFixed(2)}×** | ${Math.min(...values).toFixed(2)}-${Math.max(...values).toFixed(2)} | ` +
    `${better} of ${values.length}${result.errors > 0 ? `; ${result.errors} failed requests` : ''} |`
}

/** Prints every round's figures of `result`, then its row. */
function print(result: Result): void {
  console.log(`${result.level} ${result.scenario}: this ${result.mine.join(', ')} ${result.unit}; ref ${result.reference.join(', ')} ${result.unit}`)
  console.log(`  ${row(result)}`)
}

await main()
