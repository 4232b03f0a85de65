import { buildApp } from './app.js'
import { ConfigError, loadConfig, type Config } from './config.js'
import { resolvePassword, resolveSecret } from './auth/credentials.js'
import { openStore } from './storage/open.js'

/** Prints one line for the operator and exits 1 (bad configuration, storage not reachable). */
export function fail(message: string): never {
  process.stderr.write(`book-service: ${message}\n`)
  process.exit(1)
}

/** Tells the operator on stderr that the storage is unreachable and when start-up tries again. */
export function reportRetry(error: unknown, delayMs: number): void {
  process.stderr.write(`book-service: database unreachable (${(error as Error).message}); retrying in ${delayMs} ms\n`)
}

/**
 * Reads the configuration once (environment, then `.env`).
 *
 * @returns the configuration; on a bad value prints the one-line reason and exits 1.
 */
export function configOrExit() {
  try {
    return loadConfig()
  } catch (error) {
    if (error instanceof ConfigError) fail(error.message)
    throw error
  }
}

/**
 * The signing secret: `SECRET_TOKEN`, or the one generated and kept in the data folder.
 *
 * @returns the secret; when none can be had (PostgreSQL without `SECRET_TOKEN`) prints the
 *   one-line reason and exits 1.
 */
export function secretOrExit(config: Config): string {
  try {
    return resolveSecret(config)
  } catch (error) {
    if (error instanceof ConfigError) fail(error.message)
    throw error
  }
}

/**
 * Starts the service (`npm start`, `book-service serve`): reads the configuration once, resolves
 * the secret and password (generating them on first start), opens the storage (applying
 * migrations), listens, and on SIGTERM/SIGINT stops accepting, finishes in-flight requests, closes
 * the storage and exits 0. Exits 1 with one line on stderr when it cannot start.
 */
export async function serve(): Promise<void> {
  const config = configOrExit()
  const secret = secretOrExit(config)
  const password = resolvePassword(config, (lines) => process.stderr.write(lines))

  // Until the app's logger exists, a pooled connection lost between requests is told on stderr.
  let connectionLost = (error: unknown): void => {
    process.stderr.write(`book-service: database connection lost (${(error as Error).message}); reconnecting on the next query\n`)
  }
  let store
  try {
    store = await openStore(
      config,
      reportRetry,
      (error) => connectionLost(error)
    )
  } catch (error) {
    fail(`cannot open the storage at DATABASE_URL: ${(error as Error).message || String(error)}`)
  }
  const app = await buildApp({ config: { ...config, SECRET_TOKEN: secret, AUTH_PASSWORD: password }, store })
  connectionLost = (error) => app.log.warn({ err: error }, 'database connection lost; reconnecting on the next query')

  let stopping = false
  const stop = (signal: string) => {
    if (stopping) return
    stopping = true
    app.log.info({ signal }, 'stopping: finishing in-flight requests')
    app.close().then(
      () => process.exit(0),
      (error: unknown) => {
        app.log.error({ err: error }, 'error while stopping')
        process.exit(1)
      }
    )
  }
  process.once('SIGTERM', stop)
  process.once('SIGINT', stop)

  try {
    await app.listen({ port: config.PORT, host: config.HOST })
  } catch (error) {
    await app.close()
    fail(`cannot listen on ${config.HOST}:${config.PORT}: ${(error as Error).message}`)
  }
}
