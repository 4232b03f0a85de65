// The `book-service` command line (commander): one subcommand per operation. Its entry is cli.ts.
import { Command, InvalidArgumentError, Option } from 'commander'
import { createTokenSigner } from './auth/tokens.js'
import { backupCommand } from './commands/backup.js'
import { BOOK_FILE_FORMATS } from './commands/book-file.js'
import { exportCommand } from './commands/export.js'
import { importCommand } from './commands/import.js'
import { migrateCommand } from './commands/migrate.js'
import { restoreCommand } from './commands/restore.js'
import { userCommand } from './commands/user.js'
import { configOrExit, secretOrExit, serve } from './serve.js'
import { packageVersion } from './version.js'

/** Longest lifetime `token --ttl` accepts, in seconds (one year, as `TOKEN_TTL`). */
const MAX_TTL_SECONDS = 31_536_000

const configuration =
  '\nConfiguration comes from environment variables and a .env file in the working directory\n' +
  '(see .env.example); the process environment wins over the file.'

/** Parses `--ttl`: a whole number of seconds from 1 to one year. */
function seconds(value: string): number {
  if (!/^[0-9]+$/.test(value) || Number(value) < 1 || Number(value) > MAX_TTL_SECONDS) {
    throw new InvalidArgumentError(`must be a whole number of seconds from 1 to ${MAX_TTL_SECONDS}`)
  }
  return Number(value)
}

/** `book-service token`: prints a token signed with the configured secret, and nothing else, on stdout. */
function mintToken(options: { sub?: string; ttl?: number }): void {
  const config = configOrExit()
  const secret = secretOrExit(config)
  const sign = createTokenSigner(secret, options.ttl ?? config.TOKEN_TTL)
  process.stdout.write(`${sign(options.sub ?? config.AUTH_USERNAME)}\n`)
}

/**
 * The `book-service` command line: `serve` (the default), `token [--sub NAME] [--ttl SECONDS]`,
 * `migrate`, `backup FILE`, `restore FILE`, `export [--format F] [--output FILE]`,
 * `import FILE [--format F] [--keep-ids]` (issue 14) and
 * `user add|list|set-role|passwd|remove` (issue 15, src/commands/user.ts), each with `--help` and
 * `--version`. Exits 1 with one line on stderr on a bad option or configuration.
 */
export function commandLine(): Command {
  const program = new Command('book-service')
    .description('HTTP + JSON book records service')
    .version(packageVersion)
    .addHelpText('after', configuration)

  program
    .command('serve', { isDefault: true })
    .description('start the service (the default command); stops cleanly on SIGTERM/SIGINT')
    .version(packageVersion)
    .addHelpText('after', configuration)
    .action(serve)

  program
    .command('token')
    .description('print a token signed with the configured secret (SECRET_TOKEN, or the one kept in the data folder)')
    .option('--sub <name>', 'the token subject (default: AUTH_USERNAME)')
    .option('--ttl <seconds>', 'lifetime in seconds (default: TOKEN_TTL)', seconds)
    .version(packageVersion)
    .addHelpText('after', configuration)
    .action(mintToken)

  program
    .command('migrate')
    .description('apply pending database migrations to DATABASE_URL, then exit (does not serve)')
    .version(packageVersion)
    .addHelpText('after', configuration)
    .action(migrateCommand)

  const formatOption = (what: string) =>
    new Option('--format <format>', `${what} format (default: from the file name's extension: .csv, .ndjson/.jsonl)`).choices(
      BOOK_FILE_FORMATS
    )

  program
    .command('backup')
    .description(
      'SQLite: write a consistent snapshot of the database to FILE while the service runs (mode 0600, integrity-checked); ' +
        'PostgreSQL: run pg_dump, or exit 2 when it is not installed'
    )
    .argument('<file>', 'where to write the backup (replaced atomically once complete)')
    .version(packageVersion)
    .addHelpText('after', `\nNightly at 03:00 from cron:\n  0 3 * * * cd /opt/book-service && book-service backup /var/backups/books-$(date +\\%a).db${configuration}`)
    .action(backupCommand)

  program
    .command('restore')
    .description(
      'SQLite: replace the database with the backup FILE (integrity and migrations checked first; refused while a service has the database open; ' +
        'the old file is kept beside it as <name>.before-restore-<time>)'
    )
    .argument('<file>', 'a backup written by `book-service backup`')
    .version(packageVersion)
    .addHelpText('after', configuration)
    .action(restoreCommand)

  program
    .command('export')
    .description('write every book, by id, as NDJSON (default) or CSV (RFC 4180, header id,title,author,year) to stdout or FILE')
    .addOption(formatOption('output'))
    .option('--output <file>', 'write to FILE (complete, or not at all) instead of stdout')
    .version(packageVersion)
    .addHelpText('after', configuration)
    .action(exportCommand)

  program
    .command('import')
    .description(
      'store every book of FILE (CSV with a header row, or NDJSON) in one transaction: all or nothing; ' +
        'an invalid row stores nothing and is listed with its line number (exit 1)'
    )
    .argument('<file>', 'the CSV or NDJSON file')
    .addOption(formatOption('input'))
    .option('--keep-ids', "keep the file's ids (refused if any is taken) instead of assigning new ones in file order")
    .version(packageVersion)
    .addHelpText('after', configuration)
    .action(importCommand)

  program.addCommand(userCommand().addHelpText('after', configuration))

  return program
}

