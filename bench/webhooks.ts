/**
 * `npm run bench:webhooks`: webhook delivery (docs/webhooks.md) against the built service
 * (`dist/start.js`) as a real process on SQLite, receivers in this process on 127.0.0.1.
 *
 * 1. Acknowledgement to delivery: WEBHOOK_BENCH_RATE (default 500) POST /book per second, open
 *    loop, for WEBHOOK_BENCH_SECONDS (10), with WEBHOOK_BENCH_ENDPOINTS (10) endpoints answering
 *    204 at once: for every (write, endpoint), the time from the 201 reaching the writer to the
 *    delivery reaching the receiver; p50, p99, max, and whether every delivery arrived. Twice:
 *    first on the service just started (`cold`: its code not yet optimized, its threads starting),
 *    then after WEBHOOK_BENCH_WARMUP_SECONDS (3) more of the same load, delivered and not counted.
 * 2. The same again with one more endpoint that never answers (each attempt times out): the
 *    other endpoints' p99, as a ratio of step 1's.
 * 3. POST /book throughput (autocannon) with no endpoint and with the endpoints receiving, each on
 *    its own fresh service: WEBHOOK_BENCH_PAIRS (3) pairs back to back in alternating order; the
 *    figure is the median of the pairs' ratios. After each measurement the endpoints' backlog is
 *    left to drain (the arrivals stop for a second), so no measurement runs beside the deliveries
 *    of the one before; the rate it drains at (deliveries a second to the 10 endpoints, no write
 *    coming in) is the dispatcher's throughput.
 *
 * Results are printed as JSON; docs/benchmarks.md "Webhooks" keeps the figures.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { Agent, createServer, request, type Server } from 'node:http'
import { cpus, loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { createSigner } from 'fast-jwt'
import { measure } from './load.js'
import { SERVER_ENTRY, freePort, startProcess, type Target } from './processes.js'

const RATE = Number(process.env.WEBHOOK_BENCH_RATE ?? 500)
const SECONDS = Number(process.env.WEBHOOK_BENCH_SECONDS ?? 10)
const ENDPOINTS = Number(process.env.WEBHOOK_BENCH_ENDPOINTS ?? 10)
const PAIRS = Number(process.env.WEBHOOK_BENCH_PAIRS ?? 3)
const THROUGHPUT_SECONDS = Number(process.env.WEBHOOK_BENCH_THROUGHPUT_SECONDS ?? 3)
const WARMUP_SECONDS = Number(process.env.WEBHOOK_BENCH_WARMUP_SECONDS ?? 3)
const SECRET = 'webhook-benchmark-secret-0123456789abcdefghijklm'
const AUTH = { authorization: `Bearer ${createSigner({ key: SECRET, algorithm: 'HS256' })({ sub: 'bench' })}` }
const now = () => performance.timeOrigin + performance.now()
const round = (value: number, digits = 1) => Math.round(value * 10 ** digits) / 10 ** digits

async function startWebhookService(directory: string): Promise<Target> {
  const port = await freePort()
  return startProcess({
    name: 'service',
    args: [SERVER_ENTRY],
    env: {
      HOST: '127.0.0.1', PORT: String(port), DATABASE_URL: join(directory, 'books.db'), SECRET_TOKEN: SECRET, AUTH_PASSWORD: 'bench-password',
      LOG_LEVEL: 'warn', WEBHOOK_ALLOW_PRIVATE: 'true', MAX_CONNECTIONS_PER_ADDRESS: '10000'
    },
    port,
    logFile: join(directory, 'service.log'),
    readyPath: '/healthz'
  })
}

/** Receivers on one server: `/ok/<n>` answers 204 and notes the arrival of each book id; `/dead` never answers. */
function startReceivers(): Promise<{ server: Server; url: string; arrivals: Map<string, number> }> {
  const arrivals = new Map<string, number>()
  const server = createServer((incoming, response) => {
    let body = ''
    incoming.on('data', (chunk: Buffer) => (body += chunk.toString()))
    incoming.on('end', () => {
      if (incoming.url === '/dead') return // never answered: the attempt times out
      const at = now()
      const { data } = JSON.parse(body) as { data: { id: number } }
      const key = `${incoming.url}#${data.id}`
      if (!arrivals.has(key)) arrivals.set(key, at)
      response.writeHead(204).end()
    })
  })
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, arrivals })))
}

const agent = new Agent({ keepAlive: true, maxSockets: 64 })

function post(target: Target, path: string, body: unknown): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const text = JSON.stringify(body)
    const outgoing = request(`${target.url}${path}`, { method: 'POST', agent, headers: { ...AUTH, 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) } }, (response) => {
      let answer = ''
      response.on('data', (chunk: Buffer) => (answer += chunk.toString()))
      response.on('end', () => resolve({ status: response.statusCode ?? 0, text: answer }))
    })
    outgoing.on('error', reject)
    outgoing.end(text)
  })
}

async function addEndpoint(target: Target, url: string): Promise<void> {
  const answer = await post(target, '/webhooks', { url })
  if (answer.status !== 201) throw new Error(`POST /webhooks: ${answer.status} ${answer.text}`)
}

function percentile(sorted: number[], p: number): number {
  return sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!
}

/** Waits until no delivery has arrived for a second (the backlog drained), at most `limitMs`. */
async function quiet(receivers: Awaited<ReturnType<typeof startReceivers>>, limitMs = 120_000): Promise<void> {
  const deadline = now() + limitMs
  for (let seen = -1; receivers.arrivals.size !== seen && now() < deadline; ) {
    seen = receivers.arrivals.size
    await new Promise((resolve) => setTimeout(resolve, 1000))
  }
}

/** Writes at RATE per second for `seconds` (open loop), then waits for the deliveries; the latencies of `paths`. */
async function latencyRun(target: Target, receivers: Awaited<ReturnType<typeof startReceivers>>, paths: string[], seconds = SECONDS) {
  receivers.arrivals.clear()
  const acks = new Map<number, number>()
  const total = Math.round(RATE * seconds)
  const start = now()
  let failures = 0
  const writes: Promise<void>[] = []
  for (let index = 0; index < total; index++) {
    const due = start + (index * 1000) / RATE
    const wait = due - now()
    if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait))
    writes.push(
      post(target, '/book', { title: `T${index}`, author: 'A', year: 2000 }).then(
        (answer) => {
          if (answer.status !== 201) failures++
          else acks.set((JSON.parse(answer.text) as { data: { id: number } }).data.id, now())
        },
        () => void failures++
      )
    )
  }
  await Promise.all(writes)
  const achievedRate = total / ((now() - start) / 1000)
  const expected = acks.size * paths.length
  const deadline = now() + 120_000
  const arrived = () => [...receivers.arrivals.keys()].filter((key) => paths.includes(key.split('#')[0]!)).length
  while (arrived() < expected && now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100))
  const latencies: number[] = []
  for (const [key, at] of receivers.arrivals) {
    const [path, id] = key.split('#') as [string, string]
    const ack = acks.get(Number(id))
    if (ack !== undefined && paths.includes(path)) latencies.push(Math.max(0, at - ack))
  }
  latencies.sort((a, b) => a - b)
  return {
    writes: total, write_failures: failures, achieved_writes_per_s: round(achievedRate), deliveries_expected: expected, deliveries_arrived: arrived(),
    p50_ms: round(percentile(latencies, 50)), p99_ms: round(percentile(latencies, 99)), max_ms: round(latencies.at(-1) ?? NaN)
  }
}

async function main() {
  const receivers = await startReceivers()
  const directories: string[] = []
  const fresh = () => {
    const directory = mkdtempSync(join(tmpdir(), 'book-service-bench-webhooks-'))
    directories.push(directory)
    return directory
  }
  const paths = Array.from({ length: ENDPOINTS }, (_, index) => `/ok/${index}`)
  try {
    const service = await startWebhookService(fresh())
    const result: Record<string, unknown> = { node: process.version, cpus: cpus().length, loadavg_before: loadavg().map((value) => round(value, 2)), rate: RATE, seconds: SECONDS, endpoints: ENDPOINTS }
    try {
      for (const path of paths) await addEndpoint(service, receivers.url + path)
      await new Promise((resolve) => setTimeout(resolve, 1500)) // the dispatcher takes its lease and reads the endpoints
      const cold = await latencyRun(service, receivers, paths)
      result.ack_to_delivery_cold = cold
      console.error(JSON.stringify({ ack_to_delivery_cold: cold }))
      if (WARMUP_SECONDS > 0) await latencyRun(service, receivers, paths, WARMUP_SECONDS)
      const healthy = await latencyRun(service, receivers, paths)
      result.ack_to_delivery = healthy
      console.error(JSON.stringify({ ack_to_delivery: healthy }))
      await addEndpoint(service, `${receivers.url}/dead`)
      await new Promise((resolve) => setTimeout(resolve, 1500))
      const withDead = await latencyRun(service, receivers, paths)
      result.ack_to_delivery_with_a_dead_endpoint = { ...withDead, p99_vs_without: round(withDead.p99_ms / healthy.p99_ms, 3) }
    } finally {
      await service.stop()
    }

    const none = await startWebhookService(fresh())
    const busy = await startWebhookService(fresh())
    try {
      for (const path of paths) await addEndpoint(busy, `${receivers.url}/t${path}`)
      await new Promise((resolve) => setTimeout(resolve, 1500))
      const load = {
        request: () => ({ method: 'POST' as const, path: '/book', body: '{"title":"T","author":"A","year":1}' }),
        headers: AUTH, connections: 16, duration: THROUGHPUT_SECONDS, warmup: 1
      }
      const ratios: number[] = []
      const drainRates: number[] = []
      const rps: Record<string, number[]> = { none: [], with_endpoints: [] }
      for (let pair = 0; pair < PAIRS; pair++) {
        const order = pair % 2 === 0 ? [none, busy] : [busy, none]
        const measured = new Map<Target, number>()
        for (const target of order) {
          measured.set(target, (await measure(target, load)).rps)
          if (target !== busy) continue
          // The backlog's deliveries with no write coming in: the rate the dispatcher sends at.
          const drainFrom = { at: now(), count: receivers.arrivals.size }
          await quiet(receivers)
          let last = drainFrom.at
          for (const at of receivers.arrivals.values()) last = Math.max(last, at)
          const drained = receivers.arrivals.size - drainFrom.count
          if (drained > 0 && last > drainFrom.at) drainRates.push(round(drained / ((last - drainFrom.at) / 1000), 0))
        }
        rps.none!.push(measured.get(none)!)
        rps.with_endpoints!.push(measured.get(busy)!)
        ratios.push(round(measured.get(busy)! / measured.get(none)!, 3))
      }
      ratios.sort((a, b) => a - b)
      result.post_book_throughput = { ...rps, pair_ratios: ratios, with_vs_none_median: ratios[Math.floor(ratios.length / 2)] }
      drainRates.sort((a, b) => a - b)
      result.backlog_deliveries_per_s = { runs: drainRates, median: drainRates[Math.floor(drainRates.length / 2)] }
    } finally {
      await Promise.all([none.stop(), busy.stop()])
    }
    result.loadavg_after = loadavg().map((value) => round(value, 2))
    console.log(JSON.stringify(result, null, 2))
  } finally {
    receivers.server.closeAllConnections()
    receivers.server.close()
    agent.destroy()
    for (const directory of directories) rmSync(directory, { recursive: true, force: true })
  }
}

await main()
