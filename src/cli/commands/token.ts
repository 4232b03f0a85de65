import { Command, InvalidArgumentError } from 'commander'
import { createTokenSigner } from '../../auth/tokens.js'
import { MAX_TOKEN_TTL_SECONDS } from '../../config.js'
import { configOrExit, secretOrExit } from '../exit.js'
import { CONFIGURATION_HELP } from '../help.js'

/** Parses `--ttl`: a whole number of seconds from 1 to {@link MAX_TOKEN_TTL_SECONDS} (one year, as `TOKEN_TTL`). */
function seconds(value: string): number {
  if (!/^[0-9]+$/.test(value) || Number(value) < 1 || Number(value) > MAX_TOKEN_TTL_SECONDS) {
    throw new InvalidArgumentError(`must be a whole number of seconds from 1 to ${MAX_TOKEN_TTL_SECONDS}`)
  }
  return Number(value)
}

/** Prints a token signed with the configured secret, and nothing else, on stdout. */
function mintToken(options: { sub?: string; ttl?: number }): void {
  const config = configOrExit()
  const secret = secretOrExit(config)
  const sign = createTokenSigner(secret, options.ttl ?? config.TOKEN_TTL)
  process.stdout.write(`${sign(options.sub ?? config.AUTH_USERNAME)}\n`)
}

/**
 * `book-service token [--sub NAME] [--ttl SECONDS]`: a token signed with `SECRET_TOKEN` (or the
 * secret kept in the data folder), subject `AUTH_USERNAME` and lifetime `TOKEN_TTL` unless given.
 * Exits 1 with one line on stderr on a bad `--ttl` or configuration.
 */
export function tokenCommand(): Command {
  return new Command('token')
    .description('print a token signed with the configured secret (SECRET_TOKEN, or the one kept in the data folder)')
    .option('--sub <name>', 'the token subject (default: AUTH_USERNAME)')
    .option('--ttl <seconds>', 'lifetime in seconds (default: TOKEN_TTL)', seconds)
    .addHelpText('after', CONFIGURATION_HELP)
    .action(mintToken)
}
