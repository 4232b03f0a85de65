import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { TEST_PASSWORD, TEST_SECRET } from './app.js'

/** The built entry point; `npm test` builds it first. */
export const SERVER_ENTRY = new URL('../../dist/start.js', import.meta.url).pathname
/** The built command line (`book-service`). */
export const CLI_ENTRY = new URL('../../dist/book-service.js', import.meta.url).pathname

/** A real server process started by {@link startServer}. */
export interface RunningServer {
  /** Base URL, e.g. `http://127.0.0.1:40123`. */
  url: string
  port: number
  process: ChildProcess
  /** Everything the process wrote to stdout and stderr so far. */
  output(): string
  /** What the process wrote to stdout (the JSON log lines) so far. */
  stdout(): string
  /** What the process wrote to stderr so far. */
  stderr(): string
  /** Sends `signal` (default SIGTERM) and resolves with the exit code (or the signal name). */
  stop(signal?: NodeJS.Signals): Promise<number | string>
}

/**
 * The ports {@link freePort} picks from: below Linux's default ephemeral range (32768-60999), from
 * which the kernel gives every `listen(0)` and every outgoing connection its port. A port the
 * kernel chose for a moment and then released can be handed out again at once, to another test's
 * server or to a client connection, before the process it was meant for binds it; a port from
 * this range is never handed out by the kernel, so only another `freePort` caller could clash.
 */
const PORT_RANGE = { first: 20_000, last: 32_000 }

/** Whether nothing listens on 127.0.0.1:`port` (tried by listening on it for a moment). */
function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer()
    server.unref()
    server.once('error', () => resolve(false))
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)))
  })
}

/**
 * A free TCP port on 127.0.0.1, picked at random from {@link PORT_RANGE} (outside the kernel's
 * ephemeral range, so no other process is given it meanwhile).
 *
 * @throws when 100 random ports in the range are all taken.
 */
export async function freePort(): Promise<number> {
  for (let tries = 0; tries < 100; tries++) {
    const port = PORT_RANGE.first + Math.floor(Math.random() * (PORT_RANGE.last - PORT_RANGE.first + 1))
    if (await portIsFree(port)) return port
  }
  throw new Error(`no free port found in ${PORT_RANGE.first}-${PORT_RANGE.last}`)
}

/** A new empty temporary folder; remove it with {@link removeDirectory}. */
export function temporaryDirectory(prefix = 'book-service-'): string {
  return mkdtempSync(join(tmpdir(), prefix))
}

/** Removes a folder made by {@link temporaryDirectory}. */
export function removeDirectory(path: string): void {
  rmSync(path, { recursive: true, force: true })
}

/**
 * Starts `node dist/start.js` on 127.0.0.1 and a free port (or `options.port`), with the test
 * secret and password, the database in `dataDirectory`, plus `env`. Resolves once `/healthz`
 * answers 200; rejects with the process output if it exits first or takes over `timeoutMs`
 * (default 120 s).
 */
export async function startServer(options: {
  dataDirectory: string
  env?: Record<string, string>
  port?: number
  timeoutMs?: number
  /** Called with each chunk the process writes (stdout and stderr), as it comes. */
  onOutput?: (text: string) => void
  /** What node runs (default: the server entry); e.g. `[CLI_ENTRY, 'serve']`. */
  command?: string[]
  /** The Node.js that runs it (default: the one running the tests). */
  node?: string
  /** Internal: which try this is after a port clash (at most 3). */
  attempt?: number
}): Promise<RunningServer> {
  const port = options.port ?? (await freePort())
  const env = {
    PATH: process.env.PATH ?? '',
    HOST: '127.0.0.1',
    PORT: String(port),
    DATABASE_URL: join(options.dataDirectory, 'books.db'),
    SECRET_TOKEN: TEST_SECRET,
    AUTH_PASSWORD: TEST_PASSWORD,
    LOG_LEVEL: 'info',
    ...options.env
  }
  const child = spawn(options.node ?? process.execPath, options.command ?? [SERVER_ENTRY], {
    cwd: options.dataDirectory,
    env,
    stdio: ['ignore', 'pipe', 'pipe']
  })
  let output = ''
  let stdout = ''
  let stderr = ''
  const collect = (stream: 'stdout' | 'stderr') => (chunk: Buffer) => {
    const text = chunk.toString()
    output += text
    if (stream === 'stdout') stdout += text
    else stderr += text
    options.onOutput?.(text)
  }
  child.stdout!.on('data', collect('stdout'))
  child.stderr!.on('data', collect('stderr'))
  // A test that fails half-way must not leave its server running after the test process ends.
  const killOnExit = () => child.kill('SIGKILL')
  process.once('exit', killOnExit)
  const exited = new Promise<number | string>((resolve) =>
    child.once('exit', (code, signal) => {
      process.removeListener('exit', killOnExit)
      resolve(code ?? signal ?? 'unknown')
    })
  )
  const url = `http://127.0.0.1:${port}`
  // The deadline only guards against a start that hangs: a machine running several suites at once
  // (2 cores, a dozen processes) takes well over 15 s to start a process, which is no failure.
  const deadline = Date.now() + (options.timeoutMs ?? 120_000)
  let exitCode: number | string | undefined
  void exited.then((code) => (exitCode = code))
  // Other test runs on the machine start servers too: when the log says so, wait for this process's
  // own "listening" line, so a /healthz answer from another process on a reused port never counts.
  const logsListening = ['info', 'debug', 'trace'].includes(env.LOG_LEVEL)
  for (;;) {
    if (exitCode !== undefined) {
      // The free port was taken by someone else before this server bound it: try another one.
      if (options.port === undefined && output.includes('EADDRINUSE') && (options.attempt ?? 1) < 3) {
        return startServer({ ...options, attempt: (options.attempt ?? 1) + 1 })
      }
      throw new Error(`server exited (${exitCode}) before it was ready:\n${output}`)
    }
    if (logsListening && !output.includes(`listening at ${url}`)) {
      if (Date.now() > deadline) {
        child.kill('SIGKILL')
        throw new Error(`server not ready in time:\n${output}`)
      }
      await new Promise((resolve) => setTimeout(resolve, 25))
      continue
    }
    try {
      const response = await fetch(`${url}/healthz`)
      if (response.status === 200) break
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL')
      throw new Error(`server not ready in time:\n${output}`)
    }
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
  return {
    url,
    port,
    process: child,
    output: () => output,
    stdout: () => stdout,
    stderr: () => stderr,
    stop: async (signal = 'SIGTERM') => {
      if (exitCode === undefined) child.kill(signal)
      return exited
    }
  }
}
