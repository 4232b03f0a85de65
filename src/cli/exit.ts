import { CredentialsError, resolveSecret } from '../auth/credentials.js'
import { ConfigError, loadConfig, type Config } from '../config.js'
import { DataFolderError, dataFolder } from '../storage/files.js'

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

/**
 * Reads the configuration once (environment, then `.env`).
 *
 * @returns the configuration; on a bad value prints the one-line reason and exits 1.
 */
export function configOrExit(): Config {
  return stepOrExit(() => loadConfig())
}

/**
 * Runs one start-up step (the data folder, the credentials; docs/architecture.md "Paths through
 * the code") and returns what it made; when the step refuses ({@link ConfigError},
 * {@link DataFolderError}, {@link CredentialsError}), prints its one line and exits 1. Any other
 * error is a defect and is thrown as it is.
 */
export function stepOrExit<T>(step: () => T): T {
  try {
    return step()
  } catch (error) {
    if (error instanceof ConfigError || error instanceof DataFolderError || error instanceof CredentialsError) fail(error.message)
    throw error
  }
}

/**
 * The signing secret for a command that signs tokens (`token`, `watch`, `history`, `api-token`):
 * `SECRET_TOKEN`, or the one kept in the data folder, generated the first time.
 *
 * @returns the secret; when none can be had, prints the one-line reason and exits 1.
 */
export function secretOrExit(config: Config): string {
  return stepOrExit(() => resolveSecret(config, dataFolder(config.DATABASE_URL)))
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
