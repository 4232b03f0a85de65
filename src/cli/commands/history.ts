import { Command, InvalidArgumentError } from 'commander'
import { createTokenSigner } from '../../auth/tokens.js'
import { createClient, type HistoryEntry } from '../../client/index.js'
import { configOrExit, fail, secretOrExit } from '../exit.js'
import { jsonLines, table, type Listing } from '../table.js'
import { CONFIGURATION_HELP } from '../help.js'

/** Options of `book-service history`. */
export interface HistoryOptions {
  url?: string
  token?: string
  json?: boolean
}

/** Lifetime of the reader token `history` signs when none is given, in seconds. */
const TOKEN_TTL_SECONDS = 300

/** Parses the book id argument: decimal digits, 1 to 2^53-1. */
function bookId(value: string): number {
  const id = /^[0-9]{1,16}$/.test(value) ? Number(value) : 0
  if (id < 1 || id > Number.MAX_SAFE_INTEGER) throw new InvalidArgumentError('must be a book id (decimal digits)')
  return id
}

/** How `history` lists entries (the command line's convention, cli/table.ts): `--json` prints the API's entry. */
export const historyListing: Listing<HistoryEntry> = {
  columns: [
    { header: 'VERSION', cell: (entry) => String(entry.version) },
    { header: 'OPERATION', cell: (entry) => entry.operation },
    { header: 'AT', cell: (entry) => entry.at },
    { header: 'ACTOR', cell: (entry) => entry.actor ?? '-' },
    { header: 'TITLE', cell: (entry) => entry.book?.title ?? '' },
    { header: 'AUTHOR', cell: (entry) => entry.book?.author ?? '' },
    { header: 'YEAR', cell: (entry) => (entry.book === null ? '' : String(entry.book.year)) }
  ],
  json: (entry) => entry
}

/**
 * `book-service history <id> [--json] [--url URL] [--token TOKEN]` (README "History and
 * restore"): prints the history of book `id` of the running service at URL (default
 * `http://127.0.0.1:PORT`), newest first, as a table, or with `--json` as one NDJSON line per entry
 * (the API's entry: version, operation, at, actor, book). Without `--token` (or
 * `BOOK_SERVICE_TOKEN`) it signs a short-lived reader token with the configured secret. Exits 1
 * with one line on stderr when the service answers an error (404 `Book not found`, 401, 403).
 */
async function history(id: number, options: HistoryOptions): Promise<void> {
  const config = configOrExit()
  const url = options.url ?? `http://127.0.0.1:${config.PORT}`
  const token =
    options.token ?? process.env.BOOK_SERVICE_TOKEN ?? createTokenSigner(secretOrExit(config), TOKEN_TTL_SECONDS)(config.AUTH_USERNAME, { role: 'reader' })
  const client = createClient({ baseUrl: url, token })
  const entries: HistoryEntry[] = []
  try {
    // Page by page, so a long history is never one answer.
    for (let cursor: string | undefined; ; ) {
      const page = await client.history(id, { limit: 1000, cursor })
      if (options.json) process.stdout.write(jsonLines(historyListing, page.entries))
      else entries.push(...page.entries)
      cursor = page.cursor
      if (cursor === undefined) break
    }
  } catch (error) {
    fail(`history: ${url}: ${(error as Error).message}`)
  }
  if (!options.json) process.stdout.write(table(historyListing, entries))
}

/** `book-service history`: {@link history}. */
export function historyCommand(): Command {
  return new Command('history')
    .description('print the history of a book of the running service (GET /book/{id}/history), newest first')
    .argument('<id>', 'the book id', bookId)
    .option('--json', 'one NDJSON line per entry instead of a table')
    .option('--url <url>', 'where the service is (default: http://127.0.0.1:PORT)')
    .option('--token <token>', 'the bearer token (default: BOOK_SERVICE_TOKEN, else a reader token signed with the configured secret)')
    .addHelpText('after', CONFIGURATION_HELP)
    .action(history)
}
