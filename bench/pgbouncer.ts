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
 * and of PgBouncer (Linux `/proc`). Needs wrk, pgbouncer and PostgreSQL.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
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
  for (const scenario of ['GET', 'PUT', 'POST'] as const) {
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
  }
} finally {
  for (const { target } of targets) await target.stop()
  await bouncer.stop()
  await database.drop()
  rmSync(directory, { recursive: true, force: true })
}
