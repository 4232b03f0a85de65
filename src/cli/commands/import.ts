import { existsSync } from 'node:fs'
import { Command } from 'commander'
import { checkRow } from '../../book/validation.js'
import { REPORTED_CONFLICTS, type ImportRow } from '../../storage/contracts/book-transfer.js'
import { openTransfer } from '../../storage/open.js'
import { describeProblem, type BookFileFormat } from '../../book/file-format.js'
import { BookFileError, formatOfName, formatOption, readEveryRow, readRows } from '../book-file.js'
import { configOrExit, fail, openOrExit, reportRetry } from '../exit.js'
import { CONFIGURATION_HELP } from '../help.js'
import { bookCount, progressLine } from '../progress.js'

/** Options of `book-service import`. */
export interface ImportOptions {
  format?: BookFileFormat
  keepIds?: boolean
}

/** What the change-log rows of an import record (docs/change-feed.md "Change log"): the command, no request. */
const IMPORT_CONTEXT = { actor: 'book-service import', requestId: null }

/** Rows per batch written to the database (one multi-row statement on PostgreSQL). */
const BATCH_ROWS = 1000

/** One refused row of the report: its line and why. */
interface Refusal {
  line: number
  problem: string
}

/** Prints the refusal report on stderr (the first 20 rows, then a count) and exits 1. */
function refuse(file: string, refusals: Refusal[], total: number, what: string): never {
  const lines = refusals.map(({ line, problem }) => `  line ${line}: ${problem}\n`).join('')
  const more = total > refusals.length ? `  and ${total - refusals.length} more\n` : ''
  process.stderr.write(`book-service: import refused, nothing was stored: ${total} ${what} in ${file}\n${lines}${more}`)
  process.exit(1)
}

/**
 * The validating pass: reads the whole file and checks every row with the `POST /book` schema.
 *
 * @returns the number of rows and the largest id; exits 1 with the report when a row is invalid.
 */
async function validate(file: string, format: BookFileFormat, keepIds: boolean): Promise<{ rows: number; maxId: number }> {
  const refusals: Refusal[] = []
  let invalid = 0
  let rows = 0
  let maxId = 0
  const progress = progressLine('checking')
  for await (const item of readEveryRow(file, format)) {
    const checked = 'problem' in item ? describeProblem(item.problem) : checkRow(item.value, keepIds)
    if (typeof checked === 'string') {
      if (refusals.length < REPORTED_CONFLICTS) refusals.push({ line: item.line, problem: checked })
      invalid++
    } else maxId = Math.max(maxId, checked.id ?? 0)
    rows++
    progress.add(1)
  }
  progress.done()
  if (invalid > 0) refuse(file, refusals, invalid, invalid === 1 ? 'invalid row' : 'invalid rows')
  return { rows, maxId }
}

/** The storing pass: the file's rows again, validated, in batches of {@link BATCH_ROWS}. */
async function* batches(file: string, format: BookFileFormat, keepIds: boolean): AsyncIterable<ImportRow[]> {
  let batch: ImportRow[] = []
  const progress = progressLine('import')
  for await (const item of readRows(file, format)) {
    const row = 'problem' in item ? describeProblem(item.problem) : checkRow(item.value, keepIds)
    // Valid in the first pass: the file changed since. Throwing rolls the transaction back.
    if (typeof row === 'string') throw new Error(`${file} changed while importing (line ${item.line}: ${row})`)
    batch.push({ line: item.line, row })
    if (batch.length === BATCH_ROWS) {
      yield batch
      progress.add(batch.length)
      batch = []
    }
  }
  if (batch.length > 0) yield batch
  progress.add(batch.length)
  progress.done()
}

/**
 * `book-service import FILE [--format ndjson|csv] [--keep-ids]` (docs/data.md "Backups and moving
 * data"). The format is
 * `--format`, else FILE's extension. All or nothing: a first pass validates every row with the
 * `POST /book` schema and, when any is invalid, exits 1 listing each bad row's line and why (the
 * first 20, then a count) having stored nothing; otherwise the database is opened once, its
 * schema brought up to date, and a second pass stores every row in one transaction, then prints
 * how many. Without `--keep-ids` ids are new, in file order; with it the file's ids are kept,
 * refused (nothing stored, exit 1) when any is taken, and the id sequence moves past them.
 */
async function importBooks(file: string, options: ImportOptions): Promise<void> {
  const config = configOrExit()
  const keepIds = options.keepIds ?? false
  const format = options.format ?? formatOfName(file)
  if (!format) fail(`cannot tell the format of ${file} from its name: give --format csv or --format ndjson`)
  if (!existsSync(file)) fail(`no file ${file}`)
  let checked
  try {
    checked = await validate(file, format, keepIds)
  } catch (error) {
    fail(error instanceof BookFileError ? error.message : `cannot read ${file}: ${(error as Error).message}`)
  }
  const transfer = await openOrExit('cannot open the database at DATABASE_URL', () =>
    openTransfer(config, { migrate: true, onRetry: reportRetry })
  )
  let outcome
  try {
    outcome = await transfer.store(batches(file, format, keepIds), { keepIds, maxId: checked.maxId }, IMPORT_CONTEXT)
  } catch (error) {
    fail(`import failed, nothing was stored: ${(error as Error).message}`)
  } finally {
    await transfer.close()
  }
  if (outcome.conflictCount > 0) {
    const refusals = outcome.conflicts.map(({ line, id }) => ({ line, problem: `id ${id} is already taken` }))
    refuse(file, refusals, outcome.conflictCount, outcome.conflictCount === 1 ? 'row with a taken id' : 'rows with a taken id')
  }
  process.stdout.write(`book-service: stored ${bookCount(outcome.stored)} from ${file}\n`)
}

/** `book-service import FILE`: {@link importBooks}. */
export function importCommand(): Command {
  return new Command('import')
    .description(
      'store every book of FILE (CSV with a header row, or NDJSON) in one transaction: all or nothing; ' +
        'an invalid row stores nothing and is listed with its line number (exit 1)'
    )
    .argument('<file>', 'the CSV or NDJSON file')
    .addOption(formatOption('input'))
    .option('--keep-ids', "keep the file's ids (refused if any is taken) instead of assigning new ones in file order")
    .addHelpText('after', CONFIGURATION_HELP)
    .action(importBooks)
}
