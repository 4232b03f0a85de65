import { Command, InvalidArgumentError } from 'commander'
import { createTokenSigner } from '../../auth/tokens.js'
import { createClient, type BookChangeEvent } from '../../client/index.js'
import { MAX_TOKEN_TTL_SECONDS } from '../../config.js'
import { configOrExit, fail, secretOrExit } from '../exit.js'
import { CONFIGURATION_HELP } from '../help.js'

/** Options of `book-service watch`. */
export interface WatchOptions {
  url?: string
  token?: string
  after?: number
}

/** Parses `--after`: a sequence number (whole, 0 or more). */
function parseSeq(value: string): number {
  if (!/^[0-9]{1,15}$/.test(value)) throw new InvalidArgumentError('must be a sequence number (decimal digits)')
  return Number(value)
}

/** One change as the NDJSON line `watch` prints: `{"sequence":…,"type":…,"id":…,"book":…}` (its documented output: `sequence` is the change's `seq`). */
export function changeLine(change: BookChangeEvent): string {
  return `${JSON.stringify({ sequence: change.seq, type: change.type, id: change.id, book: change.book })}\n`
}

/**
 * The line `watch` prints at each break, e.g. `book-service watch: cannot follow
 * http://127.0.0.1:9999/books/changes (fetch failed: connect ECONNREFUSED 127.0.0.1:9999); trying
 * again in 1.6 s (the wait doubles while it fails, up to 30 s)`: the client's delay, which takes
 * up to half of the doubled wait off at random.
 */
export function reconnectLine(feed: string, reason: unknown, delayMs: number): string {
  const error = reason as Error & { cause?: { message?: string } }
  const why = error.cause?.message ? `${error.message}: ${error.cause.message}` : (error.message ?? String(reason))
  // Tenths of a second: the client's delays carry jitter (docs/change-feed.md "Change feed").
  const seconds = `${Number((delayMs / 1000).toFixed(1))} s`
  return `book-service watch: cannot follow ${feed} (${why}); trying again in ${seconds} (the wait doubles while it fails, up to 30 s)\n`
}

/**
 * `book-service watch [--url URL] [--token TOKEN] [--after N]` (docs/change-feed.md "Change feed"): follows
 * the change feed of the running service at URL (default `http://127.0.0.1:PORT`) and prints each
 * change as one NDJSON line on stdout, resuming by itself after a break. Without `--token` (or
 * `BOOK_SERVICE_TOKEN`) it signs a reader token with the configured secret, kept in memory only.
 * Runs until SIGINT or SIGTERM (exit 0); exits 1 with one line on stderr when the service refuses
 * the token or the request (401, 403, 400, 404).
 */
async function watch(options: WatchOptions): Promise<void> {
  const config = configOrExit()
  const url = options.url ?? `http://127.0.0.1:${config.PORT}`
  let token = options.token ?? process.env.BOOK_SERVICE_TOKEN
  if (token === undefined) {
    // Long-lived, since a stream ends when its token expires; read-only and never written anywhere.
    token = createTokenSigner(secretOrExit(config), MAX_TOKEN_TTL_SECONDS)(config.AUTH_USERNAME, { role: 'reader' })
  }
  const controller = new AbortController()
  const stop = () => controller.abort()
  // Repeats (a forwarded signal besides the terminal's) abort nothing more.
  process.on('SIGINT', stop)
  process.on('SIGTERM', stop)
  try {
    await createClient({ baseUrl: url, token }).subscribe({
      after: options.after,
      signal: controller.signal,
      onChange: (change) => process.stdout.write(changeLine(change)),
      onReconnect: (reason, delayMs) => process.stderr.write(reconnectLine(`${url.replace(/\/+$/, '')}/books/changes`, reason, delayMs))
    })
  } catch (error) {
    fail(`watch: ${url} refused the change feed: ${(error as Error).message}`)
  }
}

/** `book-service watch`: {@link watch}. */
export function watchCommand(): Command {
  return new Command('watch')
    .description('print each change of the running service (GET /books/changes) as one NDJSON line, until interrupted')
    .option('--url <url>', 'where the service is (default: http://127.0.0.1:PORT)')
    .option('--token <token>', 'the bearer token (default: BOOK_SERVICE_TOKEN, else a reader token signed with the configured secret)')
    .option('--after <sequence>', 'start after this change (default: changes from now on)', parseSeq)
    .addHelpText('after', CONFIGURATION_HELP)
    .action(watch)
}
