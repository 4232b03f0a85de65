/**
 * The PostgreSQL write scenarios of `npm run bench` (docs/benchmarks.md "PostgreSQL writes"),
 * measured with `wrk` (`-c50` per target) against the built service and, in the same run, the plain
 * pooled one-statement-per-request server (bench/plain-postgres.ts) on the same PostgreSQL: PUT and
 * POST, one instance and two instances together (each under the same load as the one alone),
 * without and with a simulated 2 ms WAL flush (`commit_delay = 2000`, `commit_siblings = 0` on the
 * database). During the two-instance PUT load a probe measures acknowledgement to feed event: a
 * PUT every 20 ms through one instance, its event awaited on the other's `GET /books/changes`.
 */
import { execFile } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'
import pg from 'pg'
import { EventStreamParser } from '../src/client/event-stream.js'
import { freePort, startProcess, startService, type Target } from './processes.js'
import { createPostgresDatabase, seedPostgres } from './seed.js'

const run = promisify(execFile)
const PLAIN_ENTRY = new URL('./plain-postgres.ts', import.meta.url).pathname
const CONNECTIONS = 50
const BOOKS = 1000

/** One measured write scenario. */
export interface WriteResult {
  scenario: string
  rps: number
  p99_ms: number
  errors: number
}

/** The end of a wrk Lua script: one `RESULT requests duration-µs p99-µs errors` line, read by {@link wrk}. */
export const WRK_RESULT_LUA = `done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format("RESULT %d %d %d %d\\n", summary.requests, summary.duration, latency:percentile(99), e.status + e.connect + e.read + e.write + e.timeout))
end
`

/** A wrk Lua script sending `method` requests (PUT to a random book of 1..BOOKS). */
function wrkScript(directory: string, method: 'PUT' | 'POST', token: string | undefined): string {
  const file = join(directory, `wrk-${method}-${token ? 'auth' : 'plain'}.lua`)
  writeFileSync(file, `
wrk.headers["Content-Type"] = "application/json"
${token ? `wrk.headers["Authorization"] = "Bearer ${token}"` : ''}
request = function()
  if "${method}" == "PUT" then
    return wrk.format("PUT", "/book/" .. math.random(1, ${BOOKS}), nil, '{"title":"Retitled in place"}')
  end
  return wrk.format("POST", "/book", nil, '{"title":"A new book","author":"Someone","year":2001}')
end
${WRK_RESULT_LUA}`)
  return file
}

/** Runs wrk (`-t1 -c50`) on `url` for `seconds` with `script` (ending in {@link WRK_RESULT_LUA}); requests per second, p99 (ms) and errors. */
export async function wrk(url: string, script: string, seconds: number): Promise<WriteResult> {
  const { stdout } = await run('wrk', ['-t1', `-c${CONNECTIONS}`, `-d${seconds}s`, '-s', script, url], { maxBuffer: 1 << 20 })
  const [requests, durationUs, p99Us, errors] = /RESULT (\d+) (\d+) (\d+) (\d+)/.exec(stdout)!.slice(1).map(Number) as [number, number, number, number]
  return { scenario: '', rps: Math.round(requests / (durationUs / 1e6)), p99_ms: Math.round(p99Us / 100) / 10, errors }
}

/** wrk on every url at once (equal load each): their rates summed, the worst p99. */
async function together(urls: string[], script: string, seconds: number): Promise<WriteResult> {
  const results = await Promise.all(urls.map((url) => wrk(url, script, seconds)))
  return {
    scenario: '',
    rps: results.reduce((sum, result) => sum + result.rps, 0),
    p99_ms: Math.max(...results.map((result) => result.p99_ms)),
    errors: results.reduce((sum, result) => sum + result.errors, 0)
  }
}

/** Acknowledgement-to-feed-event times (ms) of PUTs through `writer` read on `reader`'s feed, while `busy` runs. */
async function ackToFeed(writer: string, reader: string, token: string, bookId: number, busy: Promise<unknown>): Promise<number[]> {
  const headers = { authorization: `Bearer ${token}` }
  const controller = new AbortController()
  const response = await fetch(`${reader}/books/changes`, { headers, signal: controller.signal })
  const acknowledged = new Map<string, number>()
  const delays: number[] = []
  const parser = new EventStreamParser()
  const reading = (async () => {
    const decoder = new TextDecoder()
    try {
      for await (const chunk of response.body!) {
        for (const event of parser.push(decoder.decode(chunk, { stream: true }))) {
          const title = (JSON.parse(event.data || 'null') as { book?: { title?: string } } | null)?.book?.title
          const at = title === undefined ? undefined : acknowledged.get(title)
          if (at !== undefined) delays.push(performance.now() - at)
        }
      }
    } catch {
      // aborted at the end
    }
  })()
  let done = false
  void busy.finally(() => (done = true))
  for (let n = 0; !done; n++) {
    const title = `probe ${n}`
    const answer = await fetch(`${writer}/book/${bookId}`, {
      method: 'PUT',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ title })
    })
    await answer.arrayBuffer()
    if (answer.status === 200) acknowledged.set(title, performance.now())
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  await new Promise((resolve) => setTimeout(resolve, 1500))
  controller.abort()
  await reading
  // A probe never seen counts as the whole wait.
  return [...delays, ...Array.from({ length: acknowledged.size - delays.length }, () => 1500)]
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!
}

/**
 * Runs every PostgreSQL write scenario (see the module's comment), `seconds` each.
 *
 * @returns the results, or a reason they could not run (no wrk, no PostgreSQL).
 */
export async function postgresWrites(options: { directory: string; secret: string; token: string; seconds: number }): Promise<WriteResult[] | string> {
  try {
    await run('wrk', ['--version']).catch((error: { stdout?: string }) => {
      if (!error.stdout?.includes('wrk')) throw error
    })
  } catch {
    return 'wrk is not installed (Debian: apt-get install -y wrk)'
  }
  const results: WriteResult[] = []
  const note = (scenario: string, result: WriteResult) => {
    results.push({ ...result, scenario })
    console.log(`${scenario.padEnd(44)} ${String(result.rps).padStart(7)} req/s  p99 ${result.p99_ms} ms  errors ${result.errors}`)
  }
  for (const flush of ['local disk', '2 ms flush'] as const) {
    const database = await createPostgresDatabase()
    if ('skip' in database) return database.skip
    const targets: Target[] = []
    try {
      if (flush === '2 ms flush') {
        const admin = new pg.Client({ connectionString: database.url })
        await admin.connect()
        const name = new URL(database.url).pathname.slice(1)
        await admin.query(`ALTER DATABASE "${name}" SET commit_delay = 2000`)
        await admin.query(`ALTER DATABASE "${name}" SET commit_siblings = 0`)
        await admin.end()
      }
      const service = (name: string) => startService({ directory: options.directory, databaseUrl: database.url, secret: options.secret, name })
      const one = await service('service A')
      targets.push(one)
      await seedPostgres(database.url, BOOKS + 1)
      const two = await service('service B')
      targets.push(two)
      const plainPort = await freePort()
      const plain = await startProcess({
        name: 'plain server',
        args: ['--import', 'tsx', PLAIN_ENTRY, String(plainPort), database.url, '10'],
        env: {},
        port: plainPort,
        logFile: join(options.directory, 'plain.log'),
        readyPath: '/'
      })
      targets.push(plain)
      const scripts = {
        plainPut: wrkScript(options.directory, 'PUT', undefined),
        plainPost: wrkScript(options.directory, 'POST', undefined),
        put: wrkScript(options.directory, 'PUT', options.token),
        post: wrkScript(options.directory, 'POST', options.token)
      }
      const seconds = options.seconds
      note(`postgres ${flush}: plain PUT`, await wrk(plain.url, scripts.plainPut, seconds))
      note(`postgres ${flush}: service PUT, one instance`, await wrk(one.url, scripts.put, seconds))
      const busy = together([one.url, two.url], scripts.put, seconds)
      const delays = ackToFeed(one.url, two.url, options.token, BOOKS + 1, busy)
      note(`postgres ${flush}: service PUT, two instances`, await busy)
      const probes = await delays
      note(`postgres ${flush}: ack to feed event (${probes.length} probes)`, { scenario: '', rps: 0, p99_ms: Math.round(percentile(probes, 99)), errors: 0 })
      note(`postgres ${flush}: plain POST`, await wrk(plain.url, scripts.plainPost, seconds))
      note(`postgres ${flush}: service POST, one instance`, await wrk(one.url, scripts.post, seconds))
      note(`postgres ${flush}: service POST, two instances`, await together([one.url, two.url], scripts.post, seconds))
    } finally {
      for (const target of targets) await target.stop()
      await database.drop()
    }
  }
  return results
}

/**
 * The ratios the targets of docs/benchmarks.md "PostgreSQL writes" are about, one line each: the
 * service over the plain server (PUT ≥ 0.6×, POST ≥ 1.0×), two instances over one (≥ 1.3× with
 * the 2 ms flush), acknowledgement to feed event p99 (< 1 s).
 */
export function writeRatios(results: WriteResult[]): string[] {
  const rps = (scenario: string) => results.find((result) => result.scenario === scenario)?.rps ?? Number.NaN
  return (['local disk', '2 ms flush'] as const).flatMap((flush) => {
    const at = (name: string) => rps(`postgres ${flush}: ${name}`)
    const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}×`
    const feed = results.find((result) => result.scenario.startsWith(`postgres ${flush}: ack to feed`))
    return [
      `postgres ${flush}: PUT ${ratio(at('service PUT, one instance'), at('plain PUT'))} the plain server (target ≥ 0.6×), ` +
        `POST ${ratio(at('service POST, one instance'), at('plain POST'))} (target ≥ 1.0×); two instances over one: ` +
        `PUT ${ratio(at('service PUT, two instances'), at('service PUT, one instance'))}, POST ${ratio(at('service POST, two instances'), at('service POST, one instance'))} ` +
        `(target ≥ 1.3× with the 2 ms flush); ack to feed p99 ${feed?.p99_ms ?? '?'} ms (target < 1000 ms)`
    ]
  })
}
