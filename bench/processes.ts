import { spawn, type ChildProcess } from 'node:child_process'
import { openSync, closeSync, readFileSync } from 'node:fs'
import { request } from 'node:http'
import { createServer } from 'node:net'
import { join } from 'node:path'

/** The built service entry; `npm run bench` builds it first. */
export const SERVER_ENTRY = new URL('../dist/start.js', import.meta.url).pathname
const BASELINE_ENTRY = new URL('./baseline.ts', import.meta.url).pathname

/** A process started by the benchmark, listening on 127.0.0.1:`port`. */
export interface Target {
  name: string
  url: string
  port: number
  child: ChildProcess
  /** Milliseconds from spawn to the first successful answer to the readiness probe. */
  startMs: number
  /** Sends SIGTERM and resolves with the exit code (or signal name). */
  stop(): Promise<number | string>
}

/** Asks the OS for a free TCP port on 127.0.0.1. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.on('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })
}

/** One HTTP GET on a fresh connection; resolves with the status (0 when it could not connect). */
function probe(url: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve) => {
    const req = request(url, { headers, agent: false }, (response) => {
      response.resume()
      response.on('end', () => resolve(response.statusCode ?? 0))
    })
    req.on('error', () => resolve(0))
    req.end()
  })
}

/**
 * Spawns `args` with `env`, its output appended to `logFile`, and polls `readyPath` (every 2 ms)
 * until it answers 200.
 *
 * @throws when the process exits first or is not ready within 20 s.
 */
export async function startProcess(options: {
  name: string
  /** The executable (default: this Node.js). */
  command?: string
  args: string[]
  env: Record<string, string>
  port: number
  logFile: string
  readyPath: string
  readyHeaders?: Record<string, string>
}): Promise<Target> {
  const log = openSync(options.logFile, 'a')
  const started = performance.now()
  const child = spawn(options.command ?? process.execPath, options.args, {
    env: { PATH: process.env.PATH ?? '', ...options.env },
    stdio: ['ignore', log, log]
  })
  closeSync(log)
  let exitCode: number | string | undefined
  const exited = new Promise<number | string>((resolve) =>
    child.once('exit', (code, signal) => resolve((exitCode = code ?? signal ?? 'unknown')))
  )
  const url = `http://127.0.0.1:${options.port}`
  for (;;) {
    if (exitCode !== undefined) {
      throw new Error(`${options.name} exited (${exitCode}) before it was ready; see ${options.logFile}:\n` +
        readFileSync(options.logFile, 'utf8').slice(-2000))
    }
    if ((await probe(url + options.readyPath, options.readyHeaders ?? {})) === 200) break
    if (performance.now() - started > 20_000) {
      child.kill('SIGKILL')
      throw new Error(`${options.name} not ready within 20 s; see ${options.logFile}`)
    }
    await new Promise((resolve) => setTimeout(resolve, 2))
  }
  const startMs = performance.now() - started
  return {
    name: options.name,
    url,
    port: options.port,
    child,
    startMs,
    stop: async () => {
      if (exitCode === undefined) child.kill('SIGTERM')
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000)
      const code = await exited
      clearTimeout(timer)
      return code
    }
  }
}

/** Starts a baseline server (`bench/baseline.ts`) of `kind` (`ceiling`, `list-<n>`, `floor`) in `directory`. */
export async function startBaseline(kind: string, directory: string): Promise<Target> {
  const port = await freePort()
  return startProcess({
    name: kind,
    args: ['--import', 'tsx', BASELINE_ENTRY, kind, String(port), join(directory, `${kind}.db`)],
    env: {},
    port,
    logFile: join(directory, `${kind}.log`),
    readyPath: '/'
  })
}

/**
 * Starts the real service (`node dist/start.js`) on 127.0.0.1 with `databaseUrl`, logging at
 * `info` into `directory/service.log`. Ready when `readyPath` (with `readyHeaders`) answers 200:
 * pass an authenticated GET /book/1 to measure the cold start to the first successful request.
 */
export async function startService(options: {
  directory: string
  databaseUrl: string
  secret: string
  readyPath?: string
  readyHeaders?: Record<string, string>
  name?: string
  /** Extra `node` options, e.g. `--cpu-prof`. */
  nodeOptions?: string[]
  /** More settings, e.g. `{ WORKERS: '2' }`. */
  env?: Record<string, string>
  /** The built entry to start (default: this checkout's `dist/start.js`; bench/compare.ts starts another build's). */
  entry?: string
}): Promise<Target> {
  const port = await freePort()
  return startProcess({
    name: options.name ?? 'service',
    args: [...(options.nodeOptions ?? []), options.entry ?? SERVER_ENTRY],
    env: {
      HOST: '127.0.0.1',
      PORT: String(port),
      DATABASE_URL: options.databaseUrl,
      SECRET_TOKEN: options.secret,
      AUTH_PASSWORD: 'bench-password',
      LOG_LEVEL: 'info',
      ...options.env
    },
    port,
    logFile: join(options.directory, 'service.log'),
    readyPath: options.readyPath ?? '/healthz',
    readyHeaders: options.readyHeaders
  })
}

/** The resident set size of process `pid` now, in bytes (Linux `/proc`; 0 elsewhere). */
export function residentBytes(pid: number): number {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
    return match ? Number(match[1]) * 1024 : 0
  } catch {
    return 0
  }
}

/** CPU time (user + system) used so far by process `pid`, in milliseconds (Linux `/proc`; 0 elsewhere). */
export function cpuMilliseconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    // Fields 14 and 15 of stat(5) (utime, stime), in clock ticks of 1/100 s on Linux.
    return (Number(fields[11]) + Number(fields[12])) * 10
  } catch {
    return 0
  }
}

/** Polls the RSS of `pid` every 20 ms until `stop()`, which returns the peak seen (bytes). */
export function sampleResident(pid: number): { stop(): number } {
  let peak = residentBytes(pid)
  const timer = setInterval(() => (peak = Math.max(peak, residentBytes(pid))), 20)
  return {
    stop: () => {
      clearInterval(timer)
      return Math.max(peak, residentBytes(pid))
    }
  }
}

/** What the normal client (bench/normal-client.ts) saw: answers 200 of all sent, slowest and p99 (failures included), in ms. */
export interface NormalClientFigures {
  normalOk: number
  normalTotal: number
  normalSlowestMs: number
  normalP99Ms: number
}

const NORMAL_CLIENT = new URL('./normal-client.ts', import.meta.url).pathname

/**
 * The normal client (bench/normal-client.ts: `GET /book/1` with `token`, each on a connection of
 * its own from 127.0.0.2, 100 ms apart) in a process of its own, so the benchmark's own load never
 * slows it, until `stop()`, which resolves with what it saw.
 */
export function startNormalClient(port: number, token: string): { stop(): Promise<NormalClientFigures> } {
  const child = spawn(process.execPath, ['--import', 'tsx', NORMAL_CLIENT, String(port)], {
    env: { PATH: process.env.PATH ?? '', TOKEN: token },
    stdio: ['pipe', 'pipe', 'inherit']
  })
  let output = ''
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()))
  const exited = new Promise((resolve) => child.once('exit', resolve))
  return {
    stop: async () => {
      child.stdin!.end()
      await exited
      const { ok, total, slowestMs, p99Ms } = JSON.parse(output) as { ok: number; total: number; slowestMs: number; p99Ms: number }
      return { normalOk: ok, normalTotal: total, normalSlowestMs: slowestMs, normalP99Ms: p99Ms }
    }
  }
}
