import { once } from 'node:events'
import { createWriteStream, renameSync, rmSync } from 'node:fs'
import { dirname } from 'node:path'
import type { Writable } from 'node:stream'
import { formatBooks, formatOfName, type BookFileFormat } from './book-file.js'
import { progressLine } from './progress.js'
import { configOrExit, fail } from '../serve.js'
import { openTransfer } from '../storage/open-transfer.js'
import { syncPath, temporaryName } from '../storage/sqlite/backup.js'

/** Options of `book-service export`. */
export interface ExportOptions {
  format?: BookFileFormat
  output?: string
}

/** Writes `text` to `out`, waiting while its buffer is full (so memory stays flat). */
async function write(out: Writable, text: string): Promise<void> {
  if (text !== '' && !out.write(text)) await once(out, 'drain')
}

/**
 * `book-service export [--format ndjson|csv] [--output FILE]` (issue 14): every book, id
 * ascending, from one snapshot, streamed page by page to stdout (default) or FILE. The format is
 * `--format`, else the one FILE's extension implies, else NDJSON. A FILE is written under a
 * temporary name (mode 0600) and renamed into place once complete, so it is never half-written.
 * Exits 1 with one line on stderr when the database cannot be read or the output written.
 */
export async function exportCommand(options: ExportOptions): Promise<void> {
  const config = configOrExit()
  const format = options.format ?? (options.output ? formatOfName(options.output) : undefined) ?? 'ndjson'
  let transfer
  try {
    transfer = await openTransfer(config.DATABASE_URL)
  } catch (error) {
    fail(`cannot open the database at DATABASE_URL: ${(error as Error).message}`)
  }
  const temporary = options.output ? temporaryName(options.output) : undefined
  const out: Writable = temporary ? createWriteStream(temporary, { flags: 'wx', mode: 0o600 }) : process.stdout
  const progress = progressLine('export')
  let first = true
  try {
    for await (const page of transfer.pages()) {
      await write(out, formatBooks(page, format, first))
      first = false
      progress.add(page.length)
    }
    if (first) await write(out, formatBooks([], format, true)) // no books: a CSV still gets its header
    progress.done()
    if (temporary) {
      out.end()
      await once(out, 'close')
      syncPath(temporary)
      renameSync(temporary, options.output!)
      syncPath(dirname(options.output!))
    }
  } catch (error) {
    if (temporary) rmSync(temporary, { force: true })
    fail(`export failed: ${(error as Error).message}`)
  } finally {
    await transfer.close()
  }
}
