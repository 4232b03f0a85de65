/**
 * `npm run bench:feed`: the change feed (GET /books/changes) under load, on SQLite, against the
 * built service (`dist/start.js`) as a real process on 127.0.0.1.
 *
 * 1. FEED_SUBSCRIBERS (default 10,000) subscribers, raw sockets spread over FEED_CLIENTS (2)
 *    child processes (bench/feed-subscribers.ts), then FEED_WRITES_PER_SECOND (100) POST /book
 *    for FEED_SECONDS (20): whether every subscriber got every event, each once and in order;
 *    the latency from each write's acknowledgement (the 201 arriving at the writer) to the
 *    event's arrival, over every FEED_SAMPLE_EVERY-th (50th) subscriber; the service's peak RSS.
 * 2. GET /book/{id} and POST /book throughput (autocannon) with no subscriber and with the feed
 *    idle (one subscriber), each on a fresh service, in one run: FEED_THROUGHPUT_PAIRS (8) pairs of
 *    runs back to back, in alternating order, so the shared machine's drift hits both sides of a
 *    pair alike; the figure is the median of the pairs' ratios.
 *
 * Results are printed as JSON; docs/benchmarks.md "The change feed" keeps the figures.
 */
import { fork } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { request, Agent } from 'node:http'
import { connect } from 'node:net'
import { cpus, loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { createSigner } from 'fast-jwt'
import { measure, type Load } from './load.js'
import { SERVER_ENTRY, freePort, sampleResident, startProcess, type Target } from './processes.js'

const SUBSCRIBERS = Number(process.env.FEED_SUBSCRIBERS ?? 10_000)
const CLIENTS = Number(process.env.FEED_CLIENTS ?? 2)
const WRITES_PER_SECOND = Number(process.env.FEED_WRITES_PER_SECOND ?? 100)
const SECONDS = Number(process.env.FEED_SECONDS ?? 20)
const SAMPLE_EVERY = Number(process.env.FEED_SAMPLE_EVERY ?? 50)
const THROUGHPUT_SECONDS = Number(process.env.FEED_THROUGHPUT_SECONDS ?? 3)
const PAIRS = Number(process.env.FEED_THROUGHPUT_PAIRS ?? 8)
const SECRET = 'feed-benchmark-secret-0123456789abcdefghijklmnop'
const TOKEN = createSigner({ key: SECRET, algorithm: 'HS256' })({ sub: 'bench' })
const AUTH = { authorization: `Bearer ${TOKEN}` }
const SUBSCRIBERS_ENTRY = new URL('./feed-subscribers.ts', import.meta.url).pathname
const MB = 1024 * 1024
const now = () => performance.timeOrigin + performance.now()

async function startFeedService(directory: string): Promise<Target> {
  const port = await freePort()
  return startProcess({
    name: 'service',
    args: [SERVER_ENTRY],
    env: {
      HOST: '127.0.0.1',
      PORT: String(port),
      DATABASE_URL: join(directory, 'books.db'),
      SECRET_TOKEN: SECRET,
      AUTH_PASSWORD: 'bench-password',
      LOG_LEVEL: 'warn',
      // The feed may take at most half of MAX_CONNECTIONS; every subscriber here shares one token.
      MAX_CONNECTIONS: String(2 * (SUBSCRIBERS + 10) + 1000),
      MAX_CONNECTIONS_PER_ADDRESS: String(2 * (SUBSCRIBERS + 10) + 1000),
      FEED_MAX_SUBSCRIBERS: String(SUBSCRIBERS + 10),
      FEED_MAX_STREAMS_PER_SUBJECT: String(SUBSCRIBERS + 10)
    },
    port,
    logFile: join(directory, 'service.log'),
    readyPath: '/healthz'
  })
}

/** The value of metric `name` on `target` (0 when absent). */
async function metric(target: Target, name: string): Promise<number> {
  const text = await (await fetch(`${target.url}/metrics`)).text()
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${name} `))
  return Number(line?.split(' ')[1] ?? 0)
}

const agent = new Agent({ keepAlive: true, maxSockets: 32 })

/** POST /book; resolves with the new id and when the 201 arrived. */
function createBook(target: Target, i: number): Promise<{ id: number; ack: number }> {
  const body = JSON.stringify({ title: `Feed ${i}`, author: 'Bench', year: 2000 })
  return new Promise((resolve, reject) => {
    const req = request(`${target.url}/book`, { method: 'POST', agent, headers: { ...AUTH, 'content-type': 'application/json' } }, (response) => {
      let text = ''
      response.setEncoding('utf8')
      response.on('data', (chunk: string) => (text += chunk))
      response.on('end', () => {
        const ack = now()
        if (response.statusCode !== 201) return reject(new Error(`POST /book answered ${response.statusCode}: ${text}`))
        resolve({ id: (JSON.parse(text) as { data: { id: number } }).data.id, ack })
      })
    })
    req.on('error', reject)
    req.end(body)
  })
}

interface ClientReport {
  subscribers: number
  received: number[]
  ordered: boolean
  closed: number
  latencies: number[]
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? NaN
const round = (value: number, digits = 1) => Math.round(value * 10 ** digits) / 10 ** digits

async function fanOut() {
  const directory = mkdtempSync(join(tmpdir(), 'book-service-bench-feed-'))
  const service = await startFeedService(directory)
  try {
    const idleRss = sampleResident(service.child.pid!)
    const clients = Array.from({ length: CLIENTS }, (_, index) => {
      const share = Math.floor(SUBSCRIBERS / CLIENTS) + (index < SUBSCRIBERS % CLIENTS ? 1 : 0)
      return fork(SUBSCRIBERS_ENTRY, [String(service.port), String(share), TOKEN, String(SAMPLE_EVERY)], { execArgv: ['--import', 'tsx'] })
    })
    const ask = <T>(child: (typeof clients)[number], message: object, key: string) =>
      new Promise<T>((resolve) => {
        const listen = (answer: Record<string, unknown>) => {
          if (!(key in answer)) return
          child.off('message', listen)
          resolve(answer[key] as T)
        }
        child.on('message', listen)
        child.send(message)
      })
    const opened = await Promise.all(
      clients.map((child) => new Promise<number>((resolve, reject) => {
        child.once('message', (message: { opened: number }) => resolve(message.opened))
        child.once('exit', (code) => reject(new Error(`a subscriber process exited (${code})`)))
      }))
    )
    const openedAt = now()
    while ((await metric(service, 'feed_subscribers')) < SUBSCRIBERS) {
      if (now() - openedAt > 60_000) throw new Error(`only ${await metric(service, 'feed_subscribers')} subscribers joined`)
      await new Promise((resolve) => setTimeout(resolve, 200))
    }
    const rssSubscribed = idleRss.stop()
    const heapSubscribed = await metric(service, 'nodejs_heap_size_used_bytes')
    const externalSubscribed = await metric(service, 'nodejs_external_memory_bytes')
    const rss = sampleResident(service.child.pid!)

    const total = WRITES_PER_SECOND * SECONDS
    const acks = new Map<number, number>()
    const writes: Promise<void>[] = []
    const started = now()
    for (let i = 0; i < total; i++) {
      // On schedule, not after the previous answer: 100/s whatever the latency.
      const due = started + (i * 1000) / WRITES_PER_SECOND
      const wait = due - now()
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait))
      writes.push(createBook(service, i).then(({ id, ack }) => void acks.set(id, ack)))
    }
    await Promise.all(writes)
    const writing = (now() - started) / 1000
    const drainStarted = now()
    for (;;) {
      const least = Math.min(...(await Promise.all(clients.map((child) => ask<number>(child, { progress: true }, 'progress')))))
      if (least >= total || now() - drainStarted > 30_000) break
      await new Promise((resolve) => setTimeout(resolve, 200))
    }
    const peak = rss.stop()
    const reports = await Promise.all(clients.map((child) => ask<ClientReport>(child, { acks: [...acks] }, 'report')))
    for (const child of clients) child.kill()
    const received = reports.flatMap((report) => report.received)
    const latencies = reports.flatMap((report) => report.latencies).sort((a, b) => a - b)
    return {
      subscribers: opened.reduce((sum, n) => sum + n, 0),
      writes: total,
      writes_per_second: round(total / writing),
      every_subscriber_got_every_event: received.every((n) => n === total),
      subscribers_complete: received.filter((n) => n === total).length,
      fewest_events_received: Math.min(...received),
      in_order_each_once: reports.every((report) => report.ordered),
      streams_closed: reports.reduce((sum, report) => sum + report.closed, 0),
      latency_samples: latencies.length,
      latency_ms: { p50: round(percentile(latencies, 50)), p99: round(percentile(latencies, 99)), max: round(latencies.at(-1) ?? NaN) },
      rss_mb: { subscribed_before_writes: round(rssSubscribed / MB), peak: round(peak / MB) },
      heap_used_mb_subscribed: round(heapSubscribed / MB),
      external_mb_subscribed: round(externalSubscribed / MB),
      events_sent_total: await metric(service, 'feed_events_sent_total'),
      dropped_total: await metric(service, 'feed_dropped_total')
    }
  } finally {
    await service.stop()
    rmSync(directory, { recursive: true, force: true })
  }
}

/** One idle subscriber on `target` (a raw socket that reads and discards), until closed. */
function idleSubscriber(target: Target) {
  const socket = connect(target.port, '127.0.0.1', () => {
    socket.write(`GET /books/changes HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${AUTH.authorization}\r\n\r\n`)
  })
  socket.resume()
  return socket
}

async function throughput() {
  const directories = [0, 1].map(() => mkdtempSync(join(tmpdir(), 'book-service-bench-feed-')))
  const [none, idle] = await Promise.all(directories.map((directory) => startFeedService(directory))) as [Target, Target]
  const subscriber = idleSubscriber(idle)
  try {
    for (const target of [none, idle]) for (let i = 0; i < 1000; i++) await createBook(target, i)
    while ((await metric(idle, 'feed_subscribers')) < 1) await new Promise((resolve) => setTimeout(resolve, 50))
    const loads: Record<string, Load> = {
      'GET /book/{id}': { request: () => ({ method: 'GET', path: `/book/${1 + Math.floor(Math.random() * 1000)}` }), headers: AUTH, connections: 16, duration: THROUGHPUT_SECONDS, warmup: 1 },
      'POST /book': { request: () => ({ method: 'POST', path: '/book', body: '{"title":"T","author":"A","year":1}' }), headers: AUTH, connections: 16, duration: THROUGHPUT_SECONDS, warmup: 1 }
    }
    const results: Record<string, { none_rps: number[]; idle_rps: number[]; pair_ratios: number[]; errors: number }> = {}
    for (const [name, load] of Object.entries(loads)) {
      const result = (results[name] = { none_rps: [] as number[], idle_rps: [] as number[], pair_ratios: [] as number[], errors: 0 })
      for (let pair = 0; pair < PAIRS; pair++) {
        // Back to back, in alternating order: each pair's ratio sees the same moment of the machine.
        const order = pair % 2 === 0 ? [none, idle] : [idle, none]
        const rps = new Map<Target, number>()
        for (const target of order) {
          const measured = await measure(target, load)
          result.errors += measured.errors
          rps.set(target, measured.rps)
        }
        result.none_rps.push(rps.get(none)!)
        result.idle_rps.push(rps.get(idle)!)
        result.pair_ratios.push(round(rps.get(idle)! / rps.get(none)!, 3))
      }
    }
    return Object.fromEntries(
      Object.entries(results).map(([name, result]) => {
        const sorted = [...result.pair_ratios].sort((a, b) => a - b)
        return [name, { ...result, idle_vs_none_median: sorted[Math.floor(sorted.length / 2)] }]
      })
    )
  } finally {
    subscriber.destroy()
    await Promise.all([none.stop(), idle.stop()])
    for (const directory of directories) rmSync(directory, { recursive: true, force: true })
  }
}

const machine = { cpus: cpus().length, model: cpus()[0]?.model, loadavg: loadavg().map((value) => round(value, 2)), node: process.version }
const fan = process.env.FEED_SKIP_FANOUT ? undefined : await fanOut()
console.log(JSON.stringify({ machine, fan_out: fan }, null, 2))
const through = process.env.FEED_SKIP_THROUGHPUT ? undefined : await throughput()
console.log(JSON.stringify({ throughput: through }, null, 2))
agent.destroy()
