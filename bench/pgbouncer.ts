/**
 * `npm run bench:pgbouncer` (docs/benchmarks.md "Behind PgBouncer"): the built service on one
 * PostgreSQL database, three instances side by side, each measured in turn:
 * - `direct`: `DATABASE_URL` the server itself, named statements (the default);
 * - `direct, unnamed`: the same with `DATABASE_NAMED_STATEMENTS=false`, what unnamed statements cost
 *   by themselves;
 * - `PgBouncer`: `DATABASE_URL` through PgBouncer in transaction mode, `DATABASE_DIRECT_URL` the
 *   server (docs/several-instances.md "Behind PgBouncer"; its `connect_query`), unnamed statements.
 *
 * Scenarios: `GET /book/{id}`, `PUT /book/{id}` (a random one of 1,000 books), `POST /book`; wrk
 * `-t1 -c50` for `BENCH_SECONDS` (default 3) per target, the targets alternating within each
 * scenario, `BENCH_ROUNDS` (default 3) rounds. Prints each target's median requests/s and p99
 * with their range, the ratios to `direct`, and the CPU time per request of the service's process
 * and of PgBouncer (Linux `/proc`).
 *
 * After each scenario's runs, the same at a fixed rate: half of what PgBouncer served at saturation
 * (`BENCH_RATE_SHARE`, default 0.5), offered to each target in turn by autocannon (`overallRate`,
 * 10 connections, `BENCH_SECONDS` per run, `BENCH_ROUNDS` rounds): the latency a client sees when
 * neither target is saturated, where the pooler's hop is not hidden by the queue wrk builds. Prints
 * each target's median p50 and p99 with their range and the ratio to `direct`. Needs wrk,
 * pgbouncer and PostgreSQL. `BENCH_SCENARIOS` (default `GET,PUT,POST`) picks the scenarios.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import autocannon from 'autocannon'
import { createSigner } from 'fast-jwt'
import { BOUND_CONNECT_QUERY, pgbouncerSkipReason, startPgBouncer } from '../test/support/pgbouncer.js'
import { WRK_RESULT_LUA, wrk, type WriteResult } from './postgres-writes.js'
import { cpuMilliseconds, startService, type Target } from './processes.js'
import { createPostgresDatabase, seedPostgres } from './seed.js'

const SECRET = 'bench-secret-0123456789-abcdefghijklmnopqrstuvwxyz'
const TOKEN = createSigner({ key: SECRET, algorithm: 'HS256', expiresIn: 3_600_000 })({ sub: 'bench' })
const BOOKS = 1000
const SECONDS = Number(process.env.BENCH_SECONDS ?? 3)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)
const RATE_SHARE = Number(process.env.BENCH_RATE_SHARE ?? 0.5)
const SCENARIOS = (process.env.BENCH_SCENARIOS ?? 'GET,PUT,POST').split(',') as Scenario[]

type Scenario = 'GET' | 'PUT' | 'POST'

/** The wrk Lua script of `scenario`, written into `directory`. */
function wrkScript(directory: string, scenario: Scenario): string {
  const file = join(directory, `wrk-${scenario}.lua`)
  writeFileSync(
    file,
    `
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Authorization"] = "Bearer ${TOKEN}"
request = function()
  local id = math.random(1, ${BOOKS})
  if "${scenario}" == "GET" then return wrk.format("GET", "/book/" .. id) end
  if "${scenario}" == "PUT" then return wrk.format("PUT", "/book/" .. id, nil, '{"title":"Retitled in place"}') end
  return wrk.format("POST", "/book", nil, '{"title":"A new book","author":"Someone","year":2001}')
end
${WRK_RESULT_LUA}`
  )
  return file
}

/**
 * Offers `scenario`'s requests to `url` at `rate` requests/s for `seconds` (autocannon,
 * `overallRate`, 10 connections). Returns the latency's p50 and p99 in ms and the requests that
 * failed or did not answer 2xx.
 */
async function atRate(url: string, scenario: Scenario, rate: number, seconds: number): Promise<{ p50: number; p99: number; errors: number }> {
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` }
  const request = () => {
    const id = 1 + Math.floor(Math.random() * BOOKS)
    if (scenario === 'GET') return { method: 'GET' as const, path: `/book/${id}` }
    if (scenario === 'PUT') return { method: 'PUT' as const, path: `/book/${id}`, body: '{"title":"Retitled in place"}' }
    return { method: 'POST' as const, path: '/book', body: '{"title":"A new book","author":"Someone","year":2001}' }
  }
  const result = await autocannon({
    url,
    connections: 10,
    overallRate: rate,
    duration: seconds,
    // A fresh headers object for every request: autocannon adds Content-Length to the one it gets.
    requests: [{ setupRequest: (sent) => ({ ...sent, headers: { ...headers }, ...request() }) }]
  })
  return { p50: result.latency.p50, p99: result.latency.p99, errors: result.errors + result.timeouts + result.non2xx }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)]!
}

if (pgbouncerSkipReason) {
  console.log(`bench:pgbouncer skipped: ${pgbouncerSkipReason}`)
  process.exit(0)
}
const database = await createPostgresDatabase()
if ('skip' in database) {
  console.log(`bench:pgbouncer skipped: ${database.skip}`)
  process.exit(0)
}
const directory = mkdtempSync(join(tmpdir(), 'bench-pgbouncer-'))
const bouncer = await startPgBouncer({ poolSize: 10, connectQuery: BOUND_CONNECT_QUERY })
const targets: Array<{ name: string; target: Target }> = []
try {
  const start = async (name: string, env: Record<string, string>) => {
    const folder = mkdtempSync(join(directory, 'service-'))
    targets.push({ name, target: await startService({ directory: folder, databaseUrl: database.url, secret: SECRET, name, env: { LOG_LEVEL: 'warn', ...env } }) })
  }
  await start('direct', {})
  await seedPostgres(database.url, BOOKS)
  await start('direct, unnamed', { DATABASE_NAMED_STATEMENTS: 'false' })
  await start('PgBouncer', { DATABASE_URL: bouncer.through(database.url), DATABASE_DIRECT_URL: database.url })
  console.log(`bench:pgbouncer: wrk -t1 -c50, ${SECONDS} s per target, ${ROUNDS} rounds, targets alternating; PgBouncer pool 10, transaction mode`)
  for (const scenario of SCENARIOS) {
    const script = wrkScript(directory, scenario)
    const results = new Map(targets.map(({ name }) => [name, [] as WriteResult[]]))
    // CPU time (ms) of the service's process and of PgBouncer, over every run of each target.
    const cpu = new Map(targets.map(({ name }) => [name, { service: 0, pooler: 0, requests: 0 }]))
    for (let round = 0; round < ROUNDS; round++) {
      for (const { name, target } of round % 2 === 0 ? targets : [...targets].reverse()) {
        const before = { service: cpuMilliseconds(target.child.pid!), pooler: cpuMilliseconds(bouncer.pid) }
        const result = await wrk(target.url, script, SECONDS)
        results.get(name)!.push(result)
        const used = cpu.get(name)!
        used.service += cpuMilliseconds(target.child.pid!) - before.service
        used.pooler += cpuMilliseconds(bouncer.pid) - before.pooler
        used.requests += result.rps * SECONDS
      }
    }
    const direct = results.get('direct')!
    for (const [name, runs] of results) {
      const rps = runs.map((entry) => entry.rps)
      const p99 = runs.map((entry) => entry.p99_ms)
      const ratio = name === 'direct' ? '' : `  rps ${(median(rps) / median(direct.map((entry) => entry.rps))).toFixed(2)}×, p99 ${(median(p99) / median(direct.map((entry) => entry.p99_ms))).toFixed(2)}× direct`
      console.log(
        `${scenario.padEnd(4)} ${name.padEnd(16)} ${Math.round(median(rps)).toString().padStart(6)} req/s (${Math.round(Math.min(...rps))}-${Math.round(Math.max(...rps))})` +
          `  p99 ${median(p99).toFixed(1)} ms (${Math.min(...p99).toFixed(1)}-${Math.max(...p99).toFixed(1)})  errors ${runs.reduce((sum, entry) => sum + entry.errors, 0)}${ratio}`
      )
      const used = cpu.get(name)!
      const perRequest = (ms: number) => `${Math.round((ms * 1000) / used.requests)} µs`
      console.log(`     ${''.padEnd(16)} CPU per request: service ${perRequest(used.service)}${name === 'PgBouncer' ? `, PgBouncer ${perRequest(used.pooler)}` : ''}`)
    }
    // The same scenario at a fixed rate, on the database as the saturated runs left it.
    const rate = Math.max(1, Math.round(median(results.get('PgBouncer')!.map((entry) => entry.rps)) * RATE_SHARE))
    console.log(`${scenario} at a fixed ${rate} req/s (${RATE_SHARE} of PgBouncer's saturated rate): autocannon -c10, ${SECONDS} s per target, ${ROUNDS} rounds`)
    const atRates = new Map(targets.map(({ name }) => [name, [] as Array<{ p50: number; p99: number; errors: number }>]))
    for (let round = 0; round < ROUNDS; round++) {
      for (const { name, target } of round % 2 === 0 ? targets : [...targets].reverse()) atRates.get(name)!.push(await atRate(target.url, scenario, rate, SECONDS))
    }
    const directP99 = median(atRates.get('direct')!.map((entry) => entry.p99))
    for (const [name, runs] of atRates) {
      const p50 = runs.map((entry) => entry.p50)
      const p99 = runs.map((entry) => entry.p99)
      console.log(
        `${scenario.padEnd(4)} ${name.padEnd(16)} p50 ${median(p50).toFixed(1)} ms (${Math.min(...p50)}-${Math.max(...p50)})  p99 ${median(p99).toFixed(1)} ms (${Math.min(...p99)}-${Math.max(...p99)})` +
          `  errors ${runs.reduce((sum, entry) => sum + entry.errors, 0)}${name === 'direct' ? '' : `  p99 ${(median(p99) / directP99).toFixed(2)}× direct`}`
      )
    }
  }
} finally {
  for (const { target } of targets) await target.stop()
  await bouncer.stop()
  await database.drop()
  rmSync(directory, { recursive: true, force: true })
}
