import { Command } from 'commander'
import { migrateDatabase } from '../../storage/open.js'
import { configOrExit, openOrExit, reportRetry } from '../exit.js'
import { CONFIGURATION_HELP } from '../help.js'

/**
 * `book-service migrate`: applies pending migrations to `DATABASE_URL` (creating a missing SQLite
 * file) without serving, says so on stderr, and exits. While PostgreSQL is unreachable it retries
 * as start-up does. Exits 1 with one line on stderr when the storage cannot be opened or migrated.
 */
export function migrateCommand(): Command {
  return new Command('migrate')
    .description('apply pending database migrations to DATABASE_URL, then exit (does not serve)')
    .addHelpText('after', CONFIGURATION_HELP)
    .action(async () => {
      const config = configOrExit()
      await openOrExit('cannot migrate the storage at DATABASE_URL', () => migrateDatabase(config, reportRetry))
      process.stderr.write('book-service: migrations applied; the database schema is up to date\n')
    })
}
