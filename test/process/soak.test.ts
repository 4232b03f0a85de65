import assert from 'node:assert/strict'
import { readFileSync, readdirSync } from 'node:fs'
import { Agent, request } from 'node:http'
import { test } from 'node:test'
import { TEST_PASSWORD, authHeaders, signToken } from '../support/app.js'
import { removeDirectory, startServer, temporaryDirectory } from '../support/server.js'

/**
 * Soak (docs/reliability.md): mixed traffic at fixed concurrency against the real process. Zero errors, RSS
 * at the end within 10% of RSS after warm-up (short runs: see RSS_TOLERANCE), and once the clients
 * have closed their connections, no more file descriptors open than before the traffic.
 * `SOAK_SECONDS` sets the length (`npm test`: 10 s; `npm run test:soak`: 60 s).
 */
const SECONDS = Number(process.env.SOAK_SECONDS ?? 10)
const CONCURRENCY = 16
const WARM_UP_MS = Math.max(4000, SECONDS * 250)
/**
 * Allowed RSS growth from warm-up to the end: 10% for a real soak (30 s or more). A short run
 * cannot hold that: V8 keeps sizing its heap for the first ~15,000 requests (measured: +15% between
 * 4 s and 10 s on a busy machine, then flat or shrinking over 40-60 s), so the short form in
 * `npm test` is a smoke check with 25%; `npm run test:soak` asserts 10%.
 */
const RSS_TOLERANCE = SECONDS >= 30 ? 0.1 : 0.25

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!

/** Resident set size of process `pid`, in bytes (Linux /proc). */
function rss(pid: number): number {
  const kib = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]!
  return Number(kib) * 1024
}
const openFiles = (pid: number) => readdirSync(`/proc/${pid}/fd`).length

test(`soak: ${SECONDS} s of mixed traffic at ${CONCURRENCY} connections, no errors, no leak`, { skip: process.platform !== 'linux' && 'needs /proc' }, async (t) => {
  const directory = temporaryDirectory()
  const server = await startServer({ dataDirectory: directory, env: { LOGIN_RATE_LIMIT: '1000000' } })
  const pid = server.process.pid!
  const auth = { ...authHeaders(), 'content-type': 'application/json' }
  const forged = { authorization: `Bearer ${signToken({}, { key: 'wrong' })}` }
  const errors: string[] = []
  let requests = 0
  let stopped = false

  // Keep-alive connections, at most one per worker. (fetch's pool opens more than it needs when a
  // connection is released a moment after its answer, so its count drifts with the machine's load.)
  const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY })
  /** One request on the agent: the status and the parsed JSON body. */
  const send = (path: string, method: string, headers: Record<string, string>, body?: string) =>
    new Promise<{ status: number; body: { status: number; data: { id?: number } | null } }>((resolve, reject) => {
      const req = request(server.url + path, { method, headers, agent }, (res) => {
        const chunks: Buffer[] = []
        res.on('data', (chunk: Buffer) => chunks.push(chunk))
        res.on('end', () => {
          try {
            resolve({ status: res.statusCode!, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) })
          } catch (error) {
            reject(error as Error)
          }
        })
        res.on('error', reject)
      })
      req.on('error', reject)
      req.end(body)
    })

  /** Sends one request and records an error unless it answered `expected`. */
  const call = async (expected: number, path: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}) => {
    requests++
    const method = init.method ?? 'GET'
    try {
      const response = await send(path, method, init.headers ?? {}, init.body)
      if (response.status !== expected || response.body.status !== expected) errors.push(`${method} ${path}: ${response.status}`)
      return response.body.data
    } catch (error) {
      errors.push(`${method} ${path}: ${(error as Error).message}`)
      return null
    }
  }

  // One cycle: create, read, update, read, list, a refused token, sometimes a login, delete.
  // Every book is deleted again, so the data set (and the list size) stays flat.
  const worker = async (n: number) => {
    for (let i = 0; !stopped; i++) {
      const created = await call(201, '/book', { method: 'POST', headers: auth, body: JSON.stringify({ title: `soak ${n}-${i}`, author: 'A', year: 2000 }) })
      const id = created?.id
      if (id === undefined) continue
      await call(200, `/book/${id}`, { headers: auth })
      await call(200, `/book/${id}`, { method: 'PUT', headers: auth, body: JSON.stringify({ year: 2001 }) })
      await call(200, `/book/${id}`, { headers: auth })
      await call(200, '/books', { headers: auth })
      await call(401, '/books', { headers: forged })
      await call(404, '/book/abc', { headers: auth })
      if (i % 20 === 0) {
        await call(200, '/login', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'admin', password: TEST_PASSWORD }) })
      }
      await call(200, `/book/${id}`, { method: 'DELETE', headers: auth })
    }
  }

  // One write first: the SQLite writer thread starts on the first write (docs/benchmarks.md "What a
  // start loads") and keeps its files open, which is the service's serving state, not a leak.
  const warmUp = await call(201, '/book', { method: 'POST', headers: auth, body: JSON.stringify({ title: 'warm-up', author: 'A', year: 2000 }) })
  if (warmUp?.id !== undefined) await call(200, `/book/${warmUp.id}`, { method: 'DELETE', headers: auth })
  const fdsBefore = openFiles(pid)
  const samples: Array<{ at: number; rss: number; fds: number }> = []
  const started = Date.now()
  const sampler = (async () => {
    while (!stopped) {
      samples.push({ at: Date.now() - started, rss: rss(pid), fds: openFiles(pid) })
      await sleep(250)
    }
  })()
  const workers = Array.from({ length: CONCURRENCY }, (_, n) => worker(n))
  await sleep(SECONDS * 1000)
  stopped = true
  await Promise.all([...workers, sampler])
  // The clients go; the server must close every descriptor the traffic opened.
  agent.destroy()
  let fdsAfter = openFiles(pid)
  for (let waited = 0; fdsAfter > fdsBefore && waited < 5000; waited += 50) {
    await sleep(50)
    fdsAfter = openFiles(pid)
  }
  try {
    // Medians over a window smooth out the garbage collector's saw-tooth.
    const window = Math.max(2000, SECONDS * 100)
    const warm = samples.filter((s) => s.at >= WARM_UP_MS && s.at < WARM_UP_MS + window)
    const end = samples.filter((s) => s.at >= SECONDS * 1000 - window)
    const warmRss = median(warm.map((s) => s.rss))
    const endRss = median(end.map((s) => s.rss))
    const peakFds = Math.max(...samples.map((s) => s.fds))
    const mib = (bytes: number) => (bytes / 1048576).toFixed(1)
    t.diagnostic(
      `soak: ${requests} requests in ${SECONDS} s (${Math.round(requests / SECONDS)}/s), ${errors.length} errors, ` +
        `RSS after warm-up ${mib(warmRss)} MiB, at the end ${mib(endRss)} MiB (${((endRss / warmRss - 1) * 100).toFixed(1)}%), ` +
        `fds ${fdsBefore} before, ${peakFds} at most, ${fdsAfter} after the clients closed`
    )
    assert.deepEqual(errors.slice(0, 20), [])
    assert.ok(endRss <= warmRss * (1 + RSS_TOLERANCE), `RSS grew from ${warmRss} to ${endRss} bytes (more than ${RSS_TOLERANCE * 100}%)`)
    assert.ok(peakFds <= fdsBefore + CONCURRENCY + 2, `${peakFds} file descriptors open under traffic, ${fdsBefore} before it`)
    assert.ok(fdsAfter <= fdsBefore, `${fdsAfter} file descriptors open after the clients closed, ${fdsBefore} before the traffic`)
  } finally {
    assert.equal(await server.stop('SIGTERM'), 0)
    removeDirectory(directory)
  }
})
