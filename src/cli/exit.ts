import { resolvePassword, resolveSecret } from '../auth/credentials.js'
import { ConfigError, loadConfig, type Config } from '../config.js'

/**
 * How a command ends when it cannot go on: one line on stderr, `book-service: <reason>`, and
 * exit status 1 (bad configuration, storage not reachable, a refused operation).
 */
export function fail(message: string): never {
  process.stderr.write(`book-service: ${message}\n`)
  process.exit(1)
}

/** Tells the operator on stderr that the storage is unreachable and when start-up tries again. */
export function reportRetry(error: unknown, delayMs: number): void {
  process.stderr.write(`book-service: database unreachable (${(error as Error).message}); retrying in ${delayMs} ms\n`)
}

/** `read()`, or on a {@link ConfigError} its one-line reason and exit 1. */
function configuredOrExit<T>(read: () => T): T {
  try {
    return read()
  } catch (error) {
    if (error instanceof ConfigError) fail(error.message)
    throw error
  }
}

/**
 * Reads the configuration once (environment, then `.env`).
 *
 * @returns the configuration; on a bad value prints the one-line reason and exits 1.
 */
export function configOrExit(): Config {
  return configuredOrExit(() => loadConfig())
}

/** `keep()`, or when the data folder cannot hold the kept file, that reason in one line and exit 1. */
function keptOrExit<T>(what: string, keep: () => T): T {
  try {
    return keep()
  } catch (error) {
    if (error instanceof ConfigError) throw error
    fail(`cannot keep the generated ${what} in the data folder: ${(error as Error).message}`)
  }
}

/**
 * The signing secret: `SECRET_TOKEN`, or the one generated and kept in the data folder.
 *
 * @returns the secret; when none can be had (PostgreSQL without `SECRET_TOKEN`, a data folder that
 *   cannot be created or written) prints the one-line reason and exits 1.
 */
export function secretOrExit(config: Config): string {
  return configuredOrExit(() => keptOrExit('secret', () => resolveSecret(config)))
}

/**
 * The first admin's password: `AUTH_PASSWORD`, or the one generated and kept in the data folder,
 * announced on stderr the first time.
 *
 * @returns the password; when the data folder cannot hold it prints the one-line reason and exits 1.
 */
export function passwordOrExit(config: Config): string {
  return keptOrExit('password', () => resolvePassword(config, (lines) => process.stderr.write(lines)))
}

/**
 * Opens what the command works on (the store, its accounts, a transfer) with `open`.
 *
 * @param failure the start of the line printed when it cannot, e.g. `cannot open the storage at
 *   DATABASE_URL`; the reason follows after a colon.
 * @returns what `open` resolved with; when it rejects, prints the line and exits 1.
 */
export async function openOrExit<T>(failure: string, open: () => Promise<T>): Promise<T> {
  try {
    return await open()
  } catch (error) {
    fail(`${failure}: ${(error as Error).message || String(error)}`)
  }
}
