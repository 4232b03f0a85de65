/**
 * `npm run bench:workers`: GET /book/{id} with `WORKERS=1`, `WORKERS=2` and the Go peer, measured
 * with wrk (`wrk -t1 -c50`, the load of docs/benchmarks.md) in interleaved rounds of one run:
 * requests per second, CPU per request (every process of the target: the primary and its
 * workers), and the resident memory of each process at idle. Prints a Markdown table for
 * docs/benchmarks.md. Needs `wrk` on the PATH; the Go peer is skipped when it cannot be built
 * (`GO_PEER_DIRECTORY` names its folder, writable).
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { availableParallelism, tmpdir } from 'node:os'
import { join } from 'node:path'
import { createSigner } from 'fast-jwt'
import { buildGoPeer, startGoPeer } from './go-peer.js'
import { cpuMilliseconds, residentBytes, startService, type Target } from './processes.js'
import { seedSqlite } from './seed.js'

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)
const BOOKS = 1000
const SECRET = 'bench-secret-0123456789-abcdefghijklmnopqrstuvwxyz'
const token = createSigner({ key: SECRET, algorithm: 'HS256', expiresIn: 3_600_000 })({ sub: 'bench' })
const auth = { authorization: `Bearer ${token}` }
const directory = mkdtempSync(join(tmpdir(), 'book-bench-workers-'))

/** The pid of `target` and of its children (a cluster primary's workers). */
function processTree(pid: number): number[] {
  try {
    const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number)
    return [pid, ...children.flatMap(processTree)]
  } catch {
    return [pid]
  }
}

/** A wrk script that asks for a random book of 1..BOOKS on each request. */
const WRK_SCRIPT = join(directory, 'random-book.lua')
spawnSync('sh', ['-c', `cat > ${WRK_SCRIPT} <<'LUA'
math.randomseed(os.time())
request = function() return wrk.format("GET", "/book/" .. math.random(1, ${BOOKS})) end
LUA`])

/** One wrk run against `target`: requests per second and CPU ms per request of its processes. */
function measure(target: Target): { rps: number; cpuPerRequestUs: number; non2xx: number } {
  const pids = processTree(target.child.pid!)
  const cpuBefore = pids.reduce((sum, pid) => sum + cpuMilliseconds(pid), 0)
  const wrk = spawnSync('wrk', ['-t1', '-c50', `-d${SECONDS}s`, '-s', WRK_SCRIPT, '-H', `Authorization: ${auth.authorization}`, target.url], { encoding: 'utf8' })
  const cpu = pids.reduce((sum, pid) => sum + cpuMilliseconds(pid), 0) - cpuBefore
  const requests = Number(/(\d+) requests in/.exec(wrk.stdout)?.[1] ?? 0)
  const non2xx = Number(/Non-2xx or 3xx responses: (\d+)/.exec(wrk.stdout)?.[1] ?? 0)
  return { rps: requests / SECONDS, cpuPerRequestUs: requests > 0 ? (cpu * 1000) / requests : 0, non2xx }
}

async function main(): Promise<void> {
  const database = join(directory, 'books.db')
  await seedSqlite(database, BOOKS)
  const targets: Target[] = []
  for (const workers of [1, 2]) {
    const own = mkdtempSync(join(directory, `w${workers}-`))
    const copy = join(own, 'books.db')
    spawnSync('cp', [database, copy])
    targets.push(await startService({ directory: own, databaseUrl: copy, secret: SECRET, name: `service WORKERS=${workers}`, readyPath: '/book/1', readyHeaders: auth, env: { WORKERS: String(workers) } }))
  }
  const peer = buildGoPeer()
  if ('skip' in peer) console.log(`Go peer skipped: ${peer.skip}`)
  else targets.push(await startGoPeer({ directory: mkdtempSync(join(directory, 'go-')), secret: SECRET, headers: auth, count: BOOKS }))

  await new Promise((resolve) => setTimeout(resolve, 3000))
  const idle = targets.map((target) => processTree(target.child.pid!).map((pid) => residentBytes(pid) / 1048576))
  const runs = targets.map(() => [] as ReturnType<typeof measure>[])
  for (let round = 0; round < ROUNDS; round++) {
    targets.forEach((target, index) => {
      const run = measure(target)
      runs[index]!.push(run)
      console.log(`round ${round + 1} ${target.name}: ${run.rps.toFixed(0)} req/s, ${run.cpuPerRequestUs.toFixed(1)} µs CPU/request${run.non2xx ? `, ${run.non2xx} non-2xx` : ''}`)
    })
  }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!
  const peerRps = targets.length > 2 ? median(runs[2]!.map((run) => run.rps)) : undefined
  console.log(`\n${availableParallelism()} cores, wrk -t1 -c50 -d${SECONDS}s, GET /book/{1..${BOOKS}}, median of ${ROUNDS} interleaved rounds\n`)
  console.log('| Target | Requests/s | × Go peer | CPU per request | RSS at idle (each process) |')
  console.log('|---|---|---|---|---|')
  targets.forEach((target, index) => {
    const rps = median(runs[index]!.map((run) => run.rps))
    const cpu = median(runs[index]!.map((run) => run.cpuPerRequestUs))
    const ratio = peerRps ? `${(rps / peerRps).toFixed(2)}×` : ''
    console.log(`| ${target.name} | ${rps.toFixed(0)} | ${ratio} | ${cpu.toFixed(1)} µs | ${idle[index]!.map((mb) => `${mb.toFixed(0)} MB`).join(' + ')} |`)
  })
  for (const target of targets) await target.stop()
  rmSync(directory, { recursive: true, force: true })
}

await main()
