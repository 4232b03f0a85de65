import { Command } from 'commander'
import { BackupError } from '../../storage/contracts/backup.js'
import { backupDatabase } from '../../storage/open.js'
import { configOrExit, fail } from '../exit.js'
import { CONFIGURATION_HELP } from '../help.js'
import { bookCount } from '../progress.js'

/** Exit code when the command does not apply to the configured engine (PostgreSQL without pg_dump). */
export const EXIT_NOT_SUPPORTED = 2

/**
 * `book-service backup FILE` (docs/data.md "Backups and moving data"): on SQLite, a consistent
 * snapshot of the database while the service runs (see {@link backupDatabase}); prints one line
 * with the number of books. On PostgreSQL, runs `pg_dump --format=custom` when it is installed; otherwise says in one line that pg_dump is the tool and exits 2.
 * Exits 1 with one line on any failure.
 */
async function backup(file: string): Promise<void> {
  const config = configOrExit()
  try {
    const backup = await backupDatabase(config, file)
    if (backup.engine === 'sqlite') {
      process.stdout.write(`book-service: backup of ${bookCount(backup.books)} written to ${file} (integrity ok)\n`)
      return
    }
    const outcome = backup.pgDump
    if (outcome === 'missing') {
      process.stderr.write('book-service: on PostgreSQL back up with pg_dump (e.g. pg_dump --format=custom --file=FILE "$DATABASE_URL"); pg_dump is not installed here\n')
      process.exit(EXIT_NOT_SUPPORTED)
    }
    if (outcome !== 0) fail(`pg_dump failed (exit ${outcome}); no backup written`)
    process.stdout.write(`book-service: PostgreSQL backup written to ${file} by pg_dump (restore it with pg_restore)\n`)
  } catch (error) {
    fail(error instanceof BackupError ? error.message : `backup failed: ${(error as Error).message}`)
  }
}

/** `book-service backup FILE`: {@link backup}. */
export function backupCommand(): Command {
  return new Command('backup')
    .description(
      'SQLite: write a consistent snapshot of the database to FILE while the service runs (mode 0600, integrity-checked); ' +
        'PostgreSQL: run pg_dump, or exit 2 when it is not installed'
    )
    .argument('<file>', 'where to write the backup (replaced atomically once complete)')
    .addHelpText('after', `\nNightly at 03:00 from cron:\n  0 3 * * * cd /opt/book-service && book-service backup /var/backups/books-$(date +\\%a).db${CONFIGURATION_HELP}`)
    .action(backup)
}
