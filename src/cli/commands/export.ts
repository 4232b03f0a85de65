import { once } from 'node:events'
import { createWriteStream } from 'node:fs'
import type { Writable } from 'node:stream'
import { Command } from 'commander'
import { MAX_SEARCH_LENGTH, parseSearch, type Search } from '../../book/search.js'
import { replaceAtomically } from '../../storage/files.js'
import type { BookTransfer } from '../../storage/contracts/book-transfer.js'
import { openTransfer } from '../../storage/open.js'
import { formatBooks, type BookFileFormat } from '../../book/file-format.js'
import { formatOfName, formatOption } from '../book-file.js'
import { configOrExit, fail, openOrExit } from '../exit.js'
import { CONFIGURATION_HELP } from '../help.js'
import { bookCount, progressLine } from '../progress.js'

/** Options of `book-service export`. */
export interface ExportOptions {
  format?: BookFileFormat
  output?: string
  /** Only the books this search finds (docs/search.md "Search"), in relevance order. */
  q?: string
}

/** Writes `text` to `out`, waiting while its buffer is full (so memory stays flat). */
async function write(out: Writable, text: string): Promise<void> {
  if (text !== '' && !out.write(text)) await once(out, 'drain')
}

/**
 * Writes every book of `transfer` (with `search`, those it finds, in relevance order), page by page, to `out` in `format` (with no books, a CSV still
 * gets its header).
 *
 * @returns how many books it wrote.
 */
async function writeBooks(transfer: BookTransfer, out: Writable, format: BookFileFormat, search: Search | undefined): Promise<number> {
  const progress = progressLine('export')
  let first = true
  let count = 0
  for await (const page of search ? transfer.searchPages(search) : transfer.pages()) {
    await write(out, formatBooks(page, format, first))
    first = false
    count += page.length
    progress.add(page.length)
  }
  if (first) await write(out, formatBooks([], format, true))
  progress.done()
  return count
}

/**
 * `book-service export [--format ndjson|csv] [--output FILE] [--q TEXT]` (docs/data.md "Backups and moving
 * data"): every book (with `--q`, those the search finds, in relevance order: docs/search.md "Search"), id
 * ascending, from one snapshot, streamed page by page to stdout (default) or FILE. The format is
 * `--format`, else the one FILE's extension implies, else NDJSON. A FILE is written under a
 * temporary name (mode 0600) and renamed into place once complete, so it is never half-written;
 * then one line on stdout says how many books it holds.
 * Exits 1 with one line on stderr when the database cannot be read or the output written.
 */
async function exportBooks(options: ExportOptions): Promise<void> {
  const config = configOrExit()
  const format = options.format ?? (options.output ? formatOfName(options.output) : undefined) ?? 'ndjson'
  let search: Search | undefined
  try {
    search = options.q === undefined ? undefined : parseSearch(options.q)
  } catch {
    fail(`--q: at most ${MAX_SEARCH_LENGTH} characters`)
  }
  const transfer = await openOrExit('cannot open the database at DATABASE_URL', () => openTransfer(config, { migrate: false }))
  try {
    if (!options.output) {
      await writeBooks(transfer, process.stdout, format, search)
      return
    }
    const count = await replaceAtomically(options.output, async (temporary) => {
      const out = createWriteStream(temporary, { flags: 'wx', mode: 0o600 })
      const written = await writeBooks(transfer, out, format, search)
      out.end()
      await once(out, 'close')
      return written
    })
    process.stdout.write(`book-service: exported ${bookCount(count)} to ${options.output} (${format === 'csv' ? 'CSV' : 'NDJSON'})\n`)
  } catch (error) {
    fail(`export failed: ${(error as Error).message}`)
  } finally {
    await transfer.close()
  }
}

/** `book-service export`: {@link exportBooks}. */
export function exportCommand(): Command {
  return new Command('export')
    .description('write every book, by id, as NDJSON (default) or CSV (RFC 4180, header id,title,author,year) to stdout or FILE')
    .addOption(formatOption('output'))
    .option('--output <file>', 'write to FILE (complete, or not at all) instead of stdout')
    .option('--q <text>', 'only the books this search finds, in relevance order (as GET /books?q=; empty: every book)')
    .addHelpText('after', CONFIGURATION_HELP)
    .action(exportBooks)
}
