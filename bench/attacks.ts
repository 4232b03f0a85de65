/**
 * `npm run bench:attacks`: the attacks of docs/reliability.md "Hardening" re-run against the built
 * service, each on a fresh process on 127.0.0.1 (SQLite), with the figures that show whether it is
 * bounded: the service's peak RSS and open files while it lasts, and what a normal client saw
 * meanwhile (its success rate and its slowest answer). The normal client is `GET /book/1` every
 * 100 ms from another loopback address (127.0.0.2), so a per-address limit on the attacker
 * (127.0.0.1) is not one on it.
 *
 * Attacks (names for `--only`): `pipelined` (h2load --h1 -m 2: 2,000 `GET /books?limit=5`, two in
 * flight on one connection), `slow-read` (slowhttptest -X with the issue's parameters when it is
 * installed, else 2,000 connections that ask for the docs page's 1.5 MB script three times and
 * never read), `idle-sockets` (12,000 idle sockets re-opened as the server closes them),
 * `deep-nesting` (40 connections posting ~1 MiB bodies of 500,000 nested arrays), `big-tokens`
 * (10,000 distinct 15 KB tokens), `filtered-list` (10 at once `GET /books?author=author` over
 * 300,000 books, which all match), `postgres-outage` (the service on PostgreSQL through a proxy
 * that goes silent for 30 s while 4 writers send `POST /book` with `Idempotency-Key`),
 * `primary-kill` (`WORKERS=2`, 16 writers, the primary SIGKILLed half-way; then the file is read:
 * stored but unanswered, acknowledged but lost), `catch-up` (100 subscribers reading 300,000 changes from
 * `after=0` as fast as they can), `feed-streams` (5,000 subscribers from 20 addresses with one
 * reader's token, re-subscribing 1 s after each refusal or end; `feed-streams-subjects`: a token
 * of its own each), `idle-sockets-20` (12,000 idle sockets from 20 addresses), `wide-bodies` (40
 * connections posting ~1 MiB bodies of 340,000 empty arrays).
 *
 * `--entry FILE` runs another build (e.g. the previous release's `dist/start.js`) for a before
 * and after; `--heap MB` caps the service's V8 heap (`--max-old-space-size`), so what an attack
 * pins shows as a process that runs out of memory rather than as an RSS that garbage also fills.
 * Prints a Markdown table. Environment: ATTACK_SECONDS (default 20) for the timed ones.
 */
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { Agent, request } from 'node:http'
import { connect, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { createSigner } from 'fast-jwt'
import { SERVER_ENTRY, freePort, residentBytes, startNormalClient, startProcess, type Target } from './processes.js'
import { seedSqlite } from './seed.js'
import { POSTGRES_ADMIN_URL } from '../test/support/engines.js'
import { postgresTarget, startProxy, through, type TcpProxy } from '../test/support/proxy.js'
import { createScratchDatabase } from '../test/support/scratch-database.js'

const SECRET = 'attack-benchmark-secret-0123456789abcdefghijklmnop'
const SECONDS = Number(process.env.ATTACK_SECONDS ?? 20)
const sign = createSigner({ key: SECRET, noTimestamp: true })
const TOKEN = sign({ sub: 'bench' })
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** What one attack run measured. */
interface Figures {
  attack: string
  /** What the attack itself got, in its own words (e.g. its status counts). */
  outcome: string
  peakRssMiB: number
  peakOpenFiles: number
  /** Open files of the service when the attack ends (its connections still held then). */
  endOpenFiles: number
  normalOk: number
  normalTotal: number
  normalSlowestMs: number
  /** The normal client's 99th percentile answer time, failures included. */
  normalP99Ms: number
  /** Whether the service was still running at the end. */
  alive: boolean
}

/** Open file descriptors of `pid` (Linux `/proc`). */
function openFiles(pid: number): number {
  try {
    return readdirSync(`/proc/${pid}/fd`).length
  } catch {
    return 0
  }
}

/** Samples the service's RSS and open files every 250 ms until `stop()`. */
function sampler(pid: number) {
  let rss = 0
  let files = 0
  let now = 0
  const take = () => {
    rss = Math.max(rss, residentBytes(pid))
    now = openFiles(pid)
    files = Math.max(files, now)
  }
  take()
  const timer = setInterval(take, 250)
  return {
    stop: () => {
      clearInterval(timer)
      take()
      return { peakRssMiB: Math.round(rss / 1024 / 1024), peakOpenFiles: files, endOpenFiles: now }
    }
  }
}

/** Starts the service under test in `directory` on a SQLite file there. */
async function startTarget(entry: string, directory: string, env: Record<string, string> = {}): Promise<Target> {
  const port = await freePort()
  return startProcess({
    name: 'service',
    args: [entry],
    env: { HOST: '127.0.0.1', PORT: String(port), DATABASE_URL: join(directory, 'books.db'), SECRET_TOKEN: SECRET, AUTH_PASSWORD: 'bench-password', LOG_LEVEL: 'warn', ...env },
    port,
    logFile: join(directory, 'service.log'),
    readyPath: '/healthz'
  })
}

/** Counts of each status (or error code) in `statuses`, as `200: 1,990, 500: 10`. */
function tally(statuses: Array<number | string>): string {
  const counts = new Map<number | string, number>()
  for (const status of statuses) counts.set(status, (counts.get(status) ?? 0) + 1)
  return [...counts].sort().map(([status, count]) => `${status}: ${count.toLocaleString('en')}`).join(', ')
}

/** Opens a TCP connection from 127.0.0.1 (the attacker's address); resolves once connected or failed. */
function attackerSocket(port: number): Promise<Socket | undefined> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port, localAddress: '127.0.0.1' })
    socket.once('connect', () => resolve(socket))
    socket.once('error', () => resolve(undefined))
  })
}

/** h2load --h1 -n 2000 -c 1 -m 2 on `GET /books?limit=5`: requests pipelined two at a time on one connection. */
async function pipelined(target: Target): Promise<string> {
  for (let n = 0; n < 20; n++) await postBook(target.port, JSON.stringify({ title: `t${n}`, author: 'author', year: 1 }))
  const socket = (await attackerSocket(target.port))!
  const statuses: number[] = []
  const line = `GET /books?limit=5 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${TOKEN}\r\n\r\n`
  let pending = Buffer.alloc(0)
  let sent = 0
  await new Promise<void>((resolve) => {
    socket.on('data', (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk])
      for (;;) {
        const end = pending.indexOf('\r\n\r\n')
        if (end === -1) return
        const head = pending.subarray(0, end).toString('latin1')
        const length = Number(/content-length: (\d+)/i.exec(head)?.[1] ?? 0)
        if (pending.length < end + 4 + length) return
        statuses.push(Number(head.slice(9, 12)))
        pending = pending.subarray(end + 4 + length)
        if (sent < 2000) {
          socket.write(line)
          sent++
        }
        if (statuses.length === 2000) return resolve()
      }
    })
    socket.on('close', () => resolve())
    socket.write(line + line)
    sent = 2
  })
  socket.destroy()
  return tally(statuses)
}

/** One `POST /book` with `body` from the attacker's address; its status (or error code). */
function postBook(port: number, body: string, agent?: Agent): Promise<number | string> {
  return new Promise((resolve) => {
    const sent = request(
      { host: '127.0.0.1', port, path: '/book', method: 'POST', localAddress: '127.0.0.1', agent: agent ?? false, headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' } },
      (response) => {
        response.resume()
        response.on('end', () => resolve(response.statusCode ?? 0))
      }
    )
    sent.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'))
    sent.end(body)
  })
}

/** How long the slow-read attack lasts, in seconds (the issue's `-l 90`). */
const SLOW_READ_SECONDS = 90

/** slowhttptest -X -c 2000 -r 400 -l 90… on the docs page's script, or the equivalent in Node. */
async function slowRead(target: Target): Promise<string> {
  const url = `${target.url}/docs/static/swagger-ui-bundle.js`
  // What the service still holds near the end, while every attacking connection is still open on the attacker's side.
  let late = 0
  const lateTimer = setTimeout(() => (late = openFiles(target.child.pid!)), (SLOW_READ_SECONDS - 5) * 1000)
  const held = () => (clearTimeout(lateTimer), `; the service's open files at ${SLOW_READ_SECONDS - 5} s: ${late.toLocaleString('en')}`)
  if (hasSlowhttptest()) {
    const args = ['-X', '-c', '2000', '-r', '400', '-l', String(SLOW_READ_SECONDS), '-w', '512', '-y', '1024', '-n', '5', '-z', '32', '-k', '3', '-u', url]
    // Its status lines are coloured: the escapes go before the counts are read.
    const output = (await run('slowhttptest', args)).replaceAll('\u001b', '').replace(/\[[0-9;]*m/g, '')
    const last = (name: string) => [...output.matchAll(new RegExp(`${name}:\\s+(\\d+)`, 'g'))].at(-1)?.[1] ?? '?'
    // slowhttptest notices a connection the service dropped only when it reads past its buffer,
    // so its counts are shown as they are; the service's open files tell what it still holds.
    return `slowhttptest -X ${args.slice(1, -2).join(' ')} (its own count at the end: ${last('connected')} connected, ${last('closed')} closed)${held()}`
  }
  const sockets: Socket[] = []
  const asked = `GET /docs/static/swagger-ui-bundle.js HTTP/1.1\r\nHost: x\r\n\r\n`.repeat(3)
  for (let n = 0; n < 2000; n++) {
    const socket = await attackerSocket(target.port)
    if (socket) {
      socket.on('error', () => {})
      socket.write(asked)
      socket.pause()
      sockets.push(socket)
    }
    if (n % 400 === 399) await sleep(1000)
  }
  await sleep(SLOW_READ_SECONDS * 1000)
  const open = sockets.filter((socket) => !socket.destroyed && socket.readyState === 'open').length
  for (const socket of sockets) socket.destroy()
  return `2,000 stalled readers of 3 x 1.5 MB: ${open} still open after ${SLOW_READ_SECONDS} s${held()}`
}

function hasSlowhttptest(): boolean {
  return (process.env.PATH ?? '').split(':').some((folder) => existsSync(join(folder, 'slowhttptest')))
}

function run(command: string, args: string[]): Promise<string> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] })
    let output = ''
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()))
    child.on('exit', () => resolve(output))
  })
}

/**
 * 12,000 idle sockets from one address, each re-opened as soon as the service closes it, for
 * `SECONDS`; then the attacker lets go of all of them itself.
 */
async function idleSockets(target: Target): Promise<string> {
  let running = true
  let closedByService = 0
  const open = new Set<Socket>()
  const keep = async () => {
    while (running) {
      const socket = connect({ host: '127.0.0.1', port: target.port, localAddress: '127.0.0.1' })
      open.add(socket)
      socket.on('error', () => {})
      await new Promise((resolve) => socket.once('close', resolve))
      open.delete(socket)
      if (running) closedByService++
      else break
      await sleep(10)
    }
  }
  const loops = Array.from({ length: 12_000 }, keep)
  await sleep(SECONDS * 1000)
  running = false
  for (const socket of open) socket.destroy()
  await Promise.all(loops)
  return `12,000 re-opening loops for ${SECONDS} s: ${closedByService.toLocaleString('en')} connections closed by the service`
}

/** 40 connections posting ~1 MiB bodies of 500,000 nested arrays under an unknown key, for `SECONDS`. */
async function deepNesting(target: Target): Promise<string> {
  const body = JSON.stringify({ title: 'Deep', author: 'Nest', year: 1 }).slice(0, -1) + `,"ignored":${'['.repeat(500_000)}${']'.repeat(500_000)}}`
  const agent = new Agent({ keepAlive: true, maxSockets: 40, localAddress: '127.0.0.1' })
  const statuses: Array<number | string> = []
  const end = Date.now() + SECONDS * 1000
  await Promise.all(Array.from({ length: 40 }, async () => {
    while (Date.now() < end) statuses.push(await postBook(target.port, body, agent))
  }))
  agent.destroy()
  return `${statuses.length.toLocaleString('en')} bodies of ${(body.length / 1024).toFixed(0)} KiB: ${tally(statuses)}`
}

/** 10,000 distinct tokens of ~15 KB, 8 connections at a time. */
async function bigTokens(target: Target): Promise<string> {
  const agent = new Agent({ keepAlive: true, maxSockets: 8, localAddress: '127.0.0.1' })
  const statuses: Array<number | string> = []
  let next = 0
  await Promise.all(Array.from({ length: 8 }, async () => {
    while (next < 10_000) {
      const token = sign({ sub: `user-${next++}`, pad: 'x'.repeat(11_200) })
      statuses.push(await new Promise<number | string>((resolve) => {
        const sent = request({ host: '127.0.0.1', port: target.port, path: '/books?limit=1', agent, headers: { authorization: `Bearer ${token}` } }, (response) => {
          response.resume()
          response.on('end', () => resolve(response.statusCode ?? 0))
        })
        sent.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'))
        sent.end()
      }))
    }
  }))
  agent.destroy()
  return `10,000 tokens of ${sign({ sub: 'user-0', pad: 'x'.repeat(11_200) }).length.toLocaleString('en')} bytes: ${tally(statuses)}`
}

/** 10 at once, for `SECONDS`: `GET /books?author=author` over 300,000 books (every one matches). */
async function filteredList(target: Target): Promise<string> {
  const agent = new Agent({ keepAlive: true, maxSockets: 10, localAddress: '127.0.0.1' })
  const sizes: number[] = []
  const statuses: Array<number | string> = []
  const end = Date.now() + SECONDS * 1000
  await Promise.all(Array.from({ length: 10 }, async () => {
    while (Date.now() < end) {
      statuses.push(await new Promise<number | string>((resolve) => {
        const sent = request({ host: '127.0.0.1', port: target.port, path: '/books?author=author', agent, headers: { authorization: `Bearer ${TOKEN}` } }, (response) => {
          let bytes = 0
          response.on('data', (chunk: Buffer) => (bytes += chunk.length))
          response.on('end', () => (sizes.push(bytes), resolve(response.statusCode ?? 0)))
        })
        sent.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'))
        sent.end()
      }))
    }
  }))
  agent.destroy()
  const mib = sizes.length === 0 ? 0 : Math.max(...sizes) / 1024 / 1024
  return `${statuses.length} lists of ${mib.toFixed(1)} MiB: ${tally(statuses)}`
}

/**
 * The 20 attacking source addresses of the many-address attacks: 127.0.0.10 to 127.0.0.29
 * (Linux routes all of 127/8 to loopback; the normal client is 127.0.0.2).
 */
const MANY_ADDRESSES = Array.from({ length: 20 }, (_, n) => `127.0.0.${10 + n}`)

/**
 * One `GET /books/changes{query}` from `localAddress` with `token`, read as fast as it comes
 * (bytes counted, nothing parsed), until the service ends it or `stop` resolves; its status (or
 * error code) and the bytes of its body. `streams` counts the streams open (status 200) and their peak.
 */
function followFeed(
  port: number,
  localAddress: string,
  token: string,
  query: string,
  stop: Promise<void>,
  streams = { open: 0, peak: 0 }
): Promise<{ status: number | string; bytes: number }> {
  return new Promise((resolve) => {
    let bytes = 0
    let status: number | string = 'error'
    const sent = request({ host: '127.0.0.1', port, path: `/books/changes${query}`, localAddress, agent: false, headers: { authorization: `Bearer ${token}` } }, (response) => {
      status = response.statusCode ?? 0
      if (status === 200) streams.peak = Math.max(streams.peak, ++streams.open)
      response.on('data', (chunk: Buffer) => (bytes += chunk.length))
      response.on('close', () => {
        if (status === 200) streams.open--
        resolve({ status, bytes })
      })
    })
    sent.on('error', (error: NodeJS.ErrnoException) => resolve({ status: bytes > 0 ? status : (error.code ?? 'error'), bytes }))
    sent.end()
    void stop.then(() => sent.destroy())
  })
}

/**
 * The catch-up attack: 100 subscribers of `GET /books/changes?after=0` over the 300,000 changes
 * of the seeded books, each with a reader token of its own subject (so no per-subject bound
 * applies), reading as fast as they can, for `SECONDS`.
 */
async function catchUp(target: Target): Promise<string> {
  let release = () => {}
  const stop = new Promise<void>((resolve) => (release = resolve))
  const streams = Array.from({ length: 100 }, (_, n) => followFeed(target.port, '127.0.0.1', sign({ sub: `reader-${n}`, role: 'reader' }), '?after=0', stop))
  await sleep(SECONDS * 1000)
  release()
  const results = await Promise.all(streams)
  const mib = results.reduce((sum, result) => sum + result.bytes, 0) / 1024 / 1024
  return `100 subscribers from after=0 over 300,000 changes: ${tally(results.map((result) => result.status))}; ${mib.toFixed(0)} MiB read in ${SECONDS} s`
}

/**
 * 5,000 subscribers over 20 source addresses (250 each), each re-subscribing 1 s (the stream's
 * `retry:`) after it is refused or its stream ends, for `SECONDS`; `subjects` reader tokens shared
 * among them (1: one account's token, as the issue's attacker; 5,000: a token each).
 */
async function feedStreams(target: Target, subjects: number): Promise<string> {
  const tokens = Array.from({ length: subjects }, (_, n) => sign({ sub: `reader-${n}`, role: 'reader' }))
  let running = true
  let release = () => {}
  const stop = new Promise<void>((resolve) => (release = resolve))
  const statuses: Array<number | string> = []
  const streams = { open: 0, peak: 0 }
  const loop = async (n: number) => {
    while (running) {
      const result = await followFeed(target.port, MANY_ADDRESSES[n % MANY_ADDRESSES.length]!, tokens[n % tokens.length]!, '', stop, streams)
      statuses.push(result.status)
      if (running) await sleep(1000)
    }
  }
  const loops = Array.from({ length: 5000 }, (_, n) => loop(n))
  await sleep(SECONDS * 1000)
  running = false
  release()
  await Promise.all(loops)
  return `5,000 subscribers from 20 addresses, ${subjects.toLocaleString('en')} subject(s): streams held at most ${streams.peak.toLocaleString('en')}; answers ${tally(statuses)}`
}

/**
 * 12,000 idle sockets from 20 source addresses (600 each), each re-opened as soon as the service
 * closes it, for `SECONDS`; then the attacker lets go of all of them itself.
 */
async function idleSocketsManyAddresses(target: Target): Promise<string> {
  let running = true
  let closedByService = 0
  const open = new Set<Socket>()
  const keep = async (n: number) => {
    while (running) {
      const socket = connect({ host: '127.0.0.1', port: target.port, localAddress: MANY_ADDRESSES[n % MANY_ADDRESSES.length] })
      open.add(socket)
      socket.on('error', () => {})
      await new Promise((resolve) => socket.once('close', resolve))
      open.delete(socket)
      if (running) closedByService++
      else break
      await sleep(10)
    }
  }
  const loops = Array.from({ length: 12_000 }, (_, n) => keep(n))
  await sleep(SECONDS * 1000)
  running = false
  for (const socket of open) socket.destroy()
  await Promise.all(loops)
  return `12,000 re-opening loops from 20 addresses for ${SECONDS} s: ${closedByService.toLocaleString('en')} connections closed by the service`
}

/** 40 connections posting ~1 MiB bodies of 340,000 empty arrays under an unknown key, for `SECONDS`. */
async function wideBodies(target: Target): Promise<string> {
  const body = JSON.stringify({ title: 't', author: 'a', year: 1 }).slice(0, -1) + `,"x":[${'[],'.repeat(340_000)}[]]}`
  const agent = new Agent({ keepAlive: true, maxSockets: 40, localAddress: '127.0.0.1' })
  const statuses: Array<number | string> = []
  const end = Date.now() + SECONDS * 1000
  await Promise.all(Array.from({ length: 40 }, async () => {
    while (Date.now() < end) statuses.push(await postBook(target.port, body, agent))
  }))
  agent.destroy()
  return `${statuses.length.toLocaleString('en')} bodies of ${(body.length / 1024).toFixed(0)} KiB: ${tally(statuses)}`
}

/** One write from the attacker's address, its answer and how long it took. */
interface TimedWrite {
  status: number | string
  ms: number
  id?: number
}

/** One `POST /book` from 127.0.0.1 with `headers` added, on a connection of its own, with a 60 s timeout. */
function timedPost(port: number, headers: Record<string, string> = {}): Promise<TimedWrite> {
  const started = performance.now()
  return new Promise((resolve) => {
    const sent = request(
      {
        host: '127.0.0.1', port, path: '/book', method: 'POST', localAddress: '127.0.0.1', agent: false,
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', ...headers }
      },
      (response) => {
        let text = ''
        response.setEncoding('utf8')
        response.on('data', (chunk: string) => (text += chunk))
        response.on('end', () => {
          const status = response.statusCode ?? 0
          const id = status === 201 ? (JSON.parse(text) as { data: { id: number } }).data.id : undefined
          resolve({ status, ms: performance.now() - started, id })
        })
        response.on('error', () => resolve({ status: 'reset', ms: performance.now() - started }))
      }
    )
    sent.setTimeout(60_000, () => sent.destroy(Object.assign(new Error('timeout'), { code: 'timeout' })))
    sent.on('error', (error: NodeJS.ErrnoException) => resolve({ status: error.code ?? 'error', ms: performance.now() - started }))
    sent.end(JSON.stringify({ title: 'Attack', author: 'Writer', year: 2000 }))
  })
}

/** The proxy between the service and PostgreSQL in the `postgres-outage` attack (set by its `start`). */
let outageProxy: TcpProxy | undefined

/**
 * The service on a scratch PostgreSQL database reached through a TCP proxy that the attack can
 * silence (test/support/proxy.ts); stopping it also closes the proxy and drops the database.
 */
async function startOnProxiedPostgres(entry: string, directory: string, env: Record<string, string>): Promise<Target> {
  const database = await createScratchDatabase(POSTGRES_ADMIN_URL, 'attack')
  const proxy = await startProxy(postgresTarget())
  outageProxy = proxy
  const target = await startTarget(entry, directory, { ...env, DATABASE_URL: through(database.url, proxy.port) })
  return {
    ...target,
    stop: async () => {
      await proxy.restore()
      const code = await target.stop()
      await proxy.close()
      await database.drop()
      return code
    }
  }
}

/** How long PostgreSQL stays silent in the `postgres-outage` attack, in seconds (the outage the issue measured was 45 s). */
const OUTAGE_SECONDS = 30

/**
 * PostgreSQL silent (every connection open, nothing answered) for {@link OUTAGE_SECONDS}, after 3 s
 * of normal writes: 4 writers send `POST /book` with an `Idempotency-Key` each all along, until
 * each got a 201 after the database answered again (at most 30 s more). What matters is how long
 * a keyed POST in flight during the silence waits (README: at most 5 s for a connection, then
 * 10 s per statement, `ROLLBACK` included), and that the service writes again once it answers.
 */
async function postgresOutage(target: Target): Promise<string> {
  const proxy = outageProxy!
  const frozenFrom = Date.now() + 3000
  const frozenUntil = frozenFrom + OUTAGE_SECONDS * 1000
  const during: TimedWrite[] = []
  const firstAfter: number[] = []
  let key = 0
  const switching = (async () => {
    await sleep(frozenFrom - Date.now())
    proxy.freeze()
    await sleep(frozenUntil - Date.now())
    await proxy.restore()
  })()
  await Promise.all(Array.from({ length: 4 }, async () => {
    while (Date.now() < frozenUntil + 30_000) {
      const sentAt = Date.now()
      const write = await timedPost(target.port, { 'idempotency-key': `outage-${key++}` })
      if (sentAt < frozenUntil && Date.now() > frozenFrom) during.push(write)
      if (sentAt >= frozenUntil && write.status === 201) {
        firstAfter.push(Date.now() - frozenUntil)
        return
      }
      if (write.status !== 201) await sleep(100)
    }
  }))
  await switching
  const slowest = Math.max(0, ...during.map((write) => write.ms)) / 1000
  const recovered = firstAfter.length === 0 ? 'never' : `${(Math.max(...firstAfter) / 1000).toFixed(1)} s`
  return `silent ${OUTAGE_SECONDS} s; keyed POSTs in flight meanwhile: ${tally(during.map((write) => write.status))}, ` +
    `slowest ${slowest.toFixed(1)} s; every writer's next 201 within ${recovered} after it answered again (${firstAfter.length} of 4)`
}

/** The data folder of the `primary-kill` attack's service (set by its `start`). */
let primaryKillDirectory: string | undefined

/** The service with `WORKERS=2` (a cluster primary and two workers) on a SQLite file in `directory`. */
async function startTwoWorkers(entry: string, directory: string, env: Record<string, string>): Promise<Target> {
  primaryKillDirectory = directory
  return startTarget(entry, directory, { ...env, WORKERS: '2' })
}

/**
 * `WORKERS=2`, 16 writers posting on connections of their own; the primary is SIGKILLed at half of
 * `SECONDS` and the writers go on until connections are refused. Then the SQLite file is read:
 * every book stored must have been answered 201 (a worker that dropped the answers of committed
 * writes leaves books nobody was told of), and every 201 must be stored.
 */
async function primaryKill(target: Target): Promise<string> {
  const writes: TimedWrite[] = []
  let killedAt: number | undefined
  const killing = sleep((SECONDS * 1000) / 2).then(() => {
    killedAt = Date.now()
    target.child.kill('SIGKILL')
  })
  await Promise.all(Array.from({ length: 16 }, async () => {
    for (;;) {
      const write = await timedPost(target.port)
      writes.push(write)
      if (write.status === 'ECONNREFUSED' || (killedAt !== undefined && write.status !== 201)) return
    }
  }))
  await killing
  await sleep(2000) // the workers finish what they answer and exit
  const { default: Database } = await import('better-sqlite3')
  const db = new Database(join(primaryKillDirectory!, 'books.db'), { readonly: true })
  const stored = new Set((db.prepare('SELECT id FROM books').pluck().all() as number[]))
  db.close()
  const acknowledged = new Set(writes.flatMap((write) => (write.id === undefined ? [] : [write.id])))
  acknowledged.add(1) // the normal client's book, created before the attack
  const unanswered = [...stored].filter((id) => !acknowledged.has(id)).length
  const lost = [...acknowledged].filter((id) => !stored.has(id)).length
  return `${writes.length.toLocaleString('en')} writes: ${tally(writes.map((write) => write.status))}; ` +
    `stored but unanswered: ${unanswered}, acknowledged but lost: ${lost}`
}

/**
 * Each attack: `run` returns what it got; `start` (default: the service on a SQLite file) starts
 * the service it runs against, and its `stop` cleans up whatever else it started.
 */
const attacks: Record<string, {
  run: (target: Target) => Promise<string>
  seed?: number
  start?: (entry: string, directory: string, env: Record<string, string>) => Promise<Target>
}> = {
  pipelined: { run: pipelined },
  'slow-read': { run: slowRead },
  'idle-sockets': { run: idleSockets },
  'deep-nesting': { run: deepNesting },
  'big-tokens': { run: bigTokens },
  'filtered-list': { run: filteredList, seed: 300_000 },
  'postgres-outage': { run: postgresOutage, start: startOnProxiedPostgres },
  'primary-kill': { run: primaryKill, start: startTwoWorkers },
  'catch-up': { run: catchUp, seed: 300_000 },
  'feed-streams': { run: (target) => feedStreams(target, 1) },
  'feed-streams-subjects': { run: (target) => feedStreams(target, 5000) },
  'idle-sockets-20': { run: idleSocketsManyAddresses },
  'wide-bodies': { run: wideBodies }
}

async function measure(name: string, entry: string, env: Record<string, string>): Promise<Figures> {
  const directory = mkdtempSync(join(tmpdir(), 'book-service-attack-'))
  try {
    const attack = attacks[name]!
    if (attack.seed !== undefined) await seedSqlite(join(directory, 'books.db'), attack.seed)
    const target = await (attack.start ?? startTarget)(entry, directory, env)
    await postBook(target.port, JSON.stringify({ title: 'Normal', author: 'Client', year: 1 }))
    const samples = sampler(target.child.pid!)
    const normal = startNormalClient(target.port, TOKEN)
    const outcome = await attack.run(target)
    const peaks = samples.stop()
    const seen = await normal.stop()
    const alive = target.child.exitCode === null && target.child.signalCode === null
    await target.stop()
    return { attack: name, outcome, ...peaks, ...seen, alive }
  } finally {
    rmSync(directory, { recursive: true, force: true })
  }
}

const { values } = parseArgs({ options: { entry: { type: 'string' }, only: { type: 'string' }, heap: { type: 'string' } } })
const entry = values.entry ?? SERVER_ENTRY
const names = values.only ? values.only.split(',') : Object.keys(attacks)
const env: Record<string, string> = values.heap ? { NODE_OPTIONS: `--max-old-space-size=${values.heap}` } : {}
console.log(`attacks on ${entry} (Node ${process.version}, ${SECONDS} s per timed attack${values.heap ? `, heap capped at ${values.heap} MB` : ''})\n`)
console.log('| Attack | What it got | Peak RSS | Open files: peak, at the end | Normal client (127.0.0.2) | Slowest normal answer | Service at the end |')
console.log('|---|---|---|---|---|---|---|')
for (const name of names) {
  const figures = await measure(name, entry, env)
  console.log(
    `| ${figures.attack} | ${figures.outcome} | ${figures.peakRssMiB} MiB | ${figures.peakOpenFiles.toLocaleString('en')}, ${figures.endOpenFiles.toLocaleString('en')} | ` +
      `${figures.normalOk} of ${figures.normalTotal} (p99 ${figures.normalP99Ms.toLocaleString('en')} ms) | ${figures.normalSlowestMs.toLocaleString('en')} ms | ${figures.alive ? 'running' : 'dead'} |`
  )
}
