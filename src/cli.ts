#!/usr/bin/env node
import './runtime.js' // first: exits with one line on an unsupported Node.js
import { Command, InvalidArgumentError } from 'commander'
import { createTokenSigner } from './auth.js'
import { userCommand } from './cli-users.js'
import { configOrExit, fail, secretOrExit, serve } from './serve.js'
import { openStore } from './storage/open.js'
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

/** `book-service migrate`: opens the configured storage, which applies pending migrations, and closes it. */
async function migrate(): Promise<void> {
  const config = configOrExit()
  let store
  try {
    store = await openStore(config, (error, delayMs) =>
      process.stderr.write(`book-service: database unreachable (${(error as Error).message}); retrying in ${delayMs} ms\n`)
    )
  } catch (error) {
    fail(`cannot migrate the storage at DATABASE_URL: ${(error as Error).message || String(error)}`)
  }
  await store.close()
  process.stderr.write('book-service: migrations applied; the database schema is up to date\n')
}

/**
 * The `book-service` command line: `serve` (the default), `token [--sub NAME] [--ttl SECONDS]`,
 * `migrate`, `user add|list|set-role|passwd|remove` (src/cli-users.ts), each with `--help` and `--version`. Exits 1 with one line on stderr on a bad option
 * or configuration.
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
    .action(migrate)

  program.addCommand(userCommand().addHelpText('after', configuration))

  return program
}

await commandLine().parseAsync()
