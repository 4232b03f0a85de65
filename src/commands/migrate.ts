import type { Config } from '../config.js'
import { configOrExit, fail, reportRetry } from '../serve.js'
import { openStore } from '../storage/open.js'

/**
 * Opens the storage `DATABASE_URL` names, which applies pending migrations (creating a missing
 * SQLite file), and closes it. While PostgreSQL is unreachable it retries as start-up does.
 * Exits 1 with one line on stderr when the storage cannot be opened or migrated.
 */
export async function migrateOrExit(config: Config): Promise<void> {
  let store
  try {
    store = await openStore(config, reportRetry)
  } catch (error) {
    fail(`cannot migrate the storage at DATABASE_URL: ${(error as Error).message || String(error)}`)
  }
  await store.close()
}

/** `book-service migrate`: applies pending migrations to `DATABASE_URL`, says so on stderr, and exits. */
export async function migrateCommand(): Promise<void> {
  await migrateOrExit(configOrExit())
  process.stderr.write('book-service: migrations applied; the database schema is up to date\n')
}
