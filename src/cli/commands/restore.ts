import { Command } from 'commander'
import { engineOf } from '../../storage/contracts/engine.js'
import { BackupError } from '../../storage/contracts/backup.js'
import { restoreDatabase } from '../../storage/open.js'
import { configOrExit, fail } from '../exit.js'
import { CONFIGURATION_HELP } from '../help.js'
import { bookCount } from '../progress.js'
import { EXIT_NOT_SUPPORTED } from './backup.js'

/**
 * `book-service restore FILE` (SQLite; docs/data.md "Backups and moving data"): replaces the database at
 * `DATABASE_URL` with the backup FILE (see {@link restoreDatabase}: integrity and migrations checked
 * first, refused while a service holds the database, the old file kept beside it). Prints one line;
 * exits 1 with one line when refused or failed (the database is then unchanged), 2 on PostgreSQL.
 */
async function restore(file: string): Promise<void> {
  const config = configOrExit()
  if (engineOf(config.DATABASE_URL) === 'postgres') {
    process.stderr.write('book-service: on PostgreSQL restore a pg_dump backup with pg_restore (e.g. pg_restore --clean --dbname="$DATABASE_URL" FILE)\n')
    process.exit(EXIT_NOT_SUPPORTED)
  }
  try {
    const { books, previous } = await restoreDatabase(config, file)
    const kept = previous ? `; the previous database is kept as ${previous}` : ''
    process.stdout.write(`book-service: restored ${bookCount(books)} from ${file} into ${config.DATABASE_URL}${kept}\n`)
  } catch (error) {
    fail(error instanceof BackupError ? `restore refused: ${error.message}` : `restore failed: ${(error as Error).message}`)
  }
}

/** `book-service restore FILE`: {@link restore}. */
export function restoreCommand(): Command {
  return new Command('restore')
    .description(
      'SQLite: replace the database with the backup FILE (integrity and migrations checked first; refused while a service has the database open; ' +
        'the old file is kept beside it as <name>.before-restore-<time>)'
    )
    .argument('<file>', 'a backup written by `book-service backup`')
    .addHelpText('after', CONFIGURATION_HELP)
    .action(restore)
}
