import cluster from 'node:cluster'
import { workerCount } from '../config.js'
import { resolveCredentials } from '../auth/credentials.js'
import { dataFolder } from '../storage/files.js'
import { configOrExit, fail, openOrExit, reportRetry, stepOrExit } from './exit.js'
import { openLogDestination } from './log-destination.js'
import { releaseStartMemory } from './start-memory.js'

/**
 * Starts the service (`npm start`, `book-service serve`) in one straight line of steps, each of
 * which either hands its result to the next or exits 1 with its one line on stderr:
 *
 * 1. settings: the configuration, read once (config.ts);
 * 2. data folder: where the service keeps its files, checked before anything is written
 *    (`dataFolder`, storage/files.ts);
 * 3. credentials: the secret and the first admin's password, generated and kept in the data
 *    folder on the first start (auth/credentials.ts);
 * 4. storage: opened, migrations applied (storage/open.ts);
 * 5. app: built (app.ts), the first admin created while none exists;
 * 6. listen, and give back the memory the start no longer needs (start-memory.ts); then on
 *    SIGTERM/SIGINT it stops accepting, finishes in-flight requests, closes the storage and exits 0.
 *
 * With `WORKERS` > 1 this process becomes the cluster primary after step 3 (cli/workers/primary.ts:
 * storage, first admin, then the workers), and each worker it forks runs this same start-up,
 * listening on the primary's port; a worker also stops when it loses its primary (killed,
 * crashed): no new connection, its in-flight requests answered.
 *
 * Its own module, apart from the `serve` command (cli/commands/serve.ts), so `npm start`
 * (src/start.ts) loads no command-line parser.
 */
export async function serve(): Promise<void> {
  const config = configOrExit()
  const folder = stepOrExit(() => dataFolder(config.DATABASE_URL))
  const workers = workerCount(config.WORKERS)
  const credentials = stepOrExit(() => resolveCredentials(config, folder, (lines) => process.stderr.write(lines)))
  if (workers > 1 && cluster.isPrimary) {
    const { runPrimary } = await import('./workers/primary.js')
    return runPrimary(config, credentials, workers)
  }
  // Loaded only here: a cluster primary serves nothing and stays small without them.
  const [{ buildApp }, { openDatabase }] = await Promise.all([import('../app.js'), import('../storage/open.js')])

  // Until the app's logger exists, a pooled connection lost between requests is told on stderr.
  let connectionLost = (error: unknown): void => {
    process.stderr.write(`book-service: database connection lost (${(error as Error).message}); reconnecting on the next query\n`)
  }
  let writeHealth = (failure: Error | undefined): void => {
    process.stderr.write(`book-service: ${failure ? `writes failing: ${failure.message}` : 'writes work again'}\n`)
  }
  const database = await openOrExit('cannot open the storage at DATABASE_URL', () =>
    openDatabase(
      config,
      reportRetry,
      (error) => connectionLost(error),
      (failure) => writeHealth(failure),
      (message) => process.stderr.write(`book-service: warning: ${message}\n`)
    )
  )
  const log = openLogDestination()
  const app = await buildApp({
    config: { ...config, SECRET_TOKEN: credentials.secret, AUTH_PASSWORD: credentials.password },
    database,
    passwordFrom: credentials.passwordFrom,
    logStream: log.stream
  })
  connectionLost = (error) => app.log.warn({ err: error }, 'database connection lost; reconnecting on the next query')
  // One line when writes start failing (not ready until one succeeds) and one when they work again.
  writeHealth = (failure) =>
    failure
      ? app.log.error({ err: failure }, `writes failing, not ready: ${failure.message}`)
      : app.log.info('writes work again: ready')

  let stopping = false
  const stop = (signal: string) => {
    if (stopping) return
    stopping = true
    app.log.info({ signal }, 'stopping: finishing in-flight requests')
    // The log is written asynchronously: its last lines are on standard output before the exit.
    app.close().then(
      () => log.end().then(() => process.exit(0)),
      (error: unknown) => {
        app.log.error({ err: error }, 'error while stopping')
        void log.end().then(() => process.exit(1))
      }
    )
  }
  // `on`, not `once`: a repeated signal (systemd signals the whole unit, a re-run's parent
  // forwards it too) must not cut the clean stop short.
  process.on('SIGTERM', stop)
  process.on('SIGINT', stop)
  if (cluster.isWorker) {
    // A worker whose primary is gone (killed, crashed) stops as on SIGTERM: it closes its copy of
    // the listening socket and finishes the requests it is answering. Node's cluster would end it
    // at once on that disconnect, resetting them, unless the disconnect is marked as expected.
    cluster.worker!.exitedAfterDisconnect = true
    // Its stderr is a pipe to the primary, closed now: a write there must not end the process.
    process.once('disconnect', () => {
      process.stderr.on('error', () => {})
      stop('disconnect')
    })
  }

  try {
    // A queue of connections not yet accepted as long as MAX_CONNECTIONS (the kernel caps it at
    // net.core.somaxconn; Node's default is 511): a burst of connections, a flood of them
    // included, waits to be accepted instead of having its SYNs dropped, which a client would only
    // retry after 1, 3, 7… s.
    await app.listen({ port: config.PORT, host: config.HOST, backlog: Math.min(config.MAX_CONNECTIONS, 65_535) })
  } catch (error) {
    await app.close()
    fail(`cannot listen on ${config.HOST}:${config.PORT}: ${(error as Error).message}`)
  }
  releaseStartMemory(app.log)
}
