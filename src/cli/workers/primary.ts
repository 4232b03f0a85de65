import cluster, { type Worker } from 'node:cluster'
import { pino, type Logger } from 'pino'
import type { Credentials } from '../../auth/credentials.js'
import { bootstrapFirstAdmin } from '../../auth/first-admin.js'
import type { Config } from '../../config.js'
import { answerMetricsRequests } from '../../http/pipeline/cluster-metrics.js'
import { openAccounts } from '../../storage/open.js'
import { fail, openOrExit, reportRetry } from '../exit.js'
import { ReplacementBackoff } from './replacement-backoff.js'

/** How long a stopping worker may take to finish its in-flight requests before it is killed, in ms. */
export const WORKER_STOP_TIMEOUT_MS = 30_000

/**
 * What a worker process is to the primary: its cluster handle, whether it listened, and what
 * it wrote on stderr before it listened (a worker that cannot start says why there, in one line).
 */
interface Tracked {
  worker: Worker
  listening: boolean
  earlyStderr: string
}

/**
 * Makes what the workers share in the storage, once, before any of them starts: the schema
 * (migrations) and the first admin account. Exits 1 with one line when it cannot.
 */
async function prepareStorage(config: Config, credentials: Credentials, log: Logger): Promise<void> {
  const opened = await openOrExit('cannot open the storage at DATABASE_URL', () => openAccounts(config, reportRetry))
  try {
    await openOrExit('cannot create the first admin account', () =>
      bootstrapFirstAdmin(opened.accounts, { username: config.AUTH_USERNAME, password: credentials.password, passwordFrom: credentials.passwordFrom }, log)
    )
  } finally {
    await opened.close()
  }
}

/**
 * The cluster primary of `WORKERS` > 1 (docs/several-instances.md "Running several instances"),
 * started by `serve` (cli/start-up.ts) once the settings, data folder and credentials are had: prepares the storage
 * once, then forks `count` workers that each build the app and listen on the one port (node:cluster
 * shares the primary's listening socket; each worker accepts from it). It serves no request itself; it answers the workers' `/metrics` with
 * the whole service's metrics (http/pipeline/cluster-metrics.ts).
 *
 * - A worker that exits before it listened during start-up stops the start: its stderr line is
 *   printed once, the other workers are stopped, and the primary exits 1 (no respawn loop).
 * - A worker that dies later is logged with its exit code or signal and replaced, sooner or later
 *   as {@link ReplacementBackoff} says, while the others keep serving.
 * - SIGTERM or SIGINT: each worker is sent SIGTERM and finishes its in-flight requests (serve.ts);
 *   the primary exits 0 once all have exited 0, 1 when one failed or outlived
 *   {@link WORKER_STOP_TIMEOUT_MS} (then it is killed).
 */
export async function runPrimary(config: Config, credentials: Credentials, count: number): Promise<void> {
  const log = pino({ level: config.LOG_LEVEL })
  await prepareStorage(config, credentials, log)

  // The workers accept from the one shared socket themselves (docs/several-instances.md "Running several
  // instances"): a connection never waits in a worker that just died, as it does when the
  // primary deals the connections out (SCHED_RR), and the primary stays off the request path.
  cluster.schedulingPolicy = cluster.SCHED_NONE // before setupPrimary, which freezes it
  // stderr through the primary: a worker that cannot start explains itself there, and the
  // primary shows that line once instead of once per worker. stdout (the JSON log) is shared.
  cluster.setupPrimary({ stdio: ['ignore', 'inherit', 'pipe', 'ipc'] })
  if (config.METRICS_ENABLED) await answerMetricsRequests()

  const tracked = new Map<number, Tracked>()
  const backoff = new ReplacementBackoff()
  let started = false
  let stopping = false
  let failedStart = false

  const fork = () => {
    const worker = cluster.fork()
    const entry: Tracked = { worker, listening: false, earlyStderr: '' }
    tracked.set(worker.id, entry)
    worker.process.stderr!.on('data', (chunk: Buffer) => {
      if (entry.listening) process.stderr.write(chunk)
      else entry.earlyStderr += chunk.toString()
    })
    worker.once('listening', () => {
      entry.listening = true
      if (entry.earlyStderr !== '') process.stderr.write(entry.earlyStderr)
      entry.earlyStderr = ''
      if (!started && [...tracked.values()].every((other) => other.listening)) {
        started = true
        log.info({ workers: count }, 'every worker is listening')
      }
    })
    worker.once('exit', (code, signal) => exited(entry, code, signal))
  }

  const stopAll = (): Promise<boolean> => {
    const exits = [...tracked.values()].map(
      ({ worker, listening }) =>
        new Promise<boolean>((resolve) => {
          // A worker still starting has no request in flight: SIGTERM ending it is a clean stop.
          const clean = (code: number | null, signal: string | null) => code === 0 || (!listening && signal === 'SIGTERM')
          if (worker.isDead()) return resolve(clean(worker.process.exitCode, worker.process.signalCode))
          const kill = setTimeout(() => {
            log.error({ worker_pid: worker.process.pid }, `worker did not stop within ${WORKER_STOP_TIMEOUT_MS} ms; killing it`)
            worker.process.kill('SIGKILL')
          }, WORKER_STOP_TIMEOUT_MS)
          worker.once('exit', (code, signal) => {
            clearTimeout(kill)
            resolve(clean(code, signal))
          })
          worker.process.kill('SIGTERM')
        })
    )
    return Promise.all(exits).then((results) => results.every(Boolean))
  }

  function exited(entry: Tracked, code: number | null, signal: string | null): void {
    const worker_pid = entry.worker.process.pid
    if (stopping) return
    if (!started && !entry.listening) {
      if (failedStart) return
      failedStart = true
      stopping = true
      const reason = entry.earlyStderr.trim().split('\n').pop()
      void stopAll().then(() =>
        fail(reason ? reason.replace(/^book-service: /, '') : `a worker exited (${signal ?? `code ${code}`}) before it listened`)
      )
      return
    }
    tracked.delete(entry.worker.id)
    const delayMs = backoff.next()
    log.warn(
      { worker_pid, code, signal, early_stderr: entry.listening ? undefined : entry.earlyStderr.trim() || undefined, restart_in_ms: delayMs },
      entry.listening ? 'worker exited; starting a replacement' : 'worker exited before it listened; starting a replacement'
    )
    setTimeout(() => stopping || fork(), delayMs)
  }

  const stop = (signal: string) => {
    if (stopping) return
    stopping = true
    log.info({ signal, workers: tracked.size }, 'stopping: every worker finishes its in-flight requests')
    void stopAll().then((clean) => process.exit(clean ? 0 : 1))
  }
  // Repeats (a unit-wide or forwarded signal) are ignored: `stop` runs once.
  process.on('SIGTERM', stop)
  process.on('SIGINT', stop)

  for (let i = 0; i < count; i++) fork()
}
