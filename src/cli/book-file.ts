import { createReadStream } from 'node:fs'
import { extname } from 'node:path'
import { createInterface } from 'node:readline'
import { Option } from 'commander'
import { parse } from 'csv-parse'
import { parse as parseRecords } from 'csv-parse/sync'
import {
  BOOK_FILE_FORMATS,
  CSV_COLUMNS,
  CSV_PARSE_OPTIONS,
  CsvRowReader,
  describeProblem,
  formatOfExtension,
  ndjsonRow,
  type BookFileFormat,
  type FileProblem,
  type FileRow
} from '../book/file-format.js'

/**
 * The book files of `book-service export` and `import` as the command line reads them: streamed
 * from a file, so memory stays flat whatever its size. The formats themselves (columns, rows,
 * escaping, the writing of books) are src/book/file-format.ts, shared with the web page.
 */

/** The `--format` option of `export` and `import`; `what` is `output` or `input`. */
export function formatOption(what: string): Option {
  return new Option('--format <format>', `${what} format (default: from the file name's extension: .csv, .ndjson/.jsonl)`).choices(
    BOOK_FILE_FORMATS
  )
}

/**
 * The format a file path implies by its extension (`formatOfExtension`).
 *
 * @returns the format, or undefined for another or no extension.
 */
export function formatOfName(path: string): BookFileFormat | undefined {
  return formatOfExtension(extname(path))
}

/** A file that cannot be read as `format` at all (e.g. an unclosed quote, no header): one line for the operator. */
export class BookFileError extends Error {
  override name = 'BookFileError'
}

/**
 * A CSV record that is not valid CSV (a stray or unclosed quote): `reason` says how, in words. The
 * command line's own kind: the web page reads CSV its own way.
 */
export interface CsvProblem {
  kind: 'csv'
  reason: string
}

/** A row of a book file as the command line reads it: {@link FileRow}, or a record that is not valid CSV. */
export type BookFileRow = FileRow | { line: number; problem: CsvProblem }

/** Why a row cannot be read, as the import's refusal lists it (`line N: …`). */
export function rowProblemText(problem: FileProblem | CsvProblem): string {
  return problem.kind === 'csv' ? problem.reason : describeProblem(problem)
}

/** csv-parse's errors of malformed CSV (`CSV_…`, `INVALID_OPENING_QUOTE`), as opposed to the file system's. */
function isCsvError(error: unknown): error is Error & { code: string } {
  const code = (error as { code?: unknown }).code
  return typeof code === 'string' && (code.startsWith('CSV_') || code === 'INVALID_OPENING_QUOTE')
}

/** What is wrong with a record csv-parse refused, in words, without csv-parse's own line count. */
function csvReason({ code, message }: { code: string; message: string }): string {
  if (code === 'INVALID_OPENING_QUOTE') return 'has a quote inside a field that does not start with one (quote the whole field and double each quote in it: "say ""hi""")'
  if (code === 'CSV_INVALID_CLOSING_QUOTE') return 'has more after a closing quote (a quote inside a quoted field is written twice: "")'
  if (code === 'CSV_QUOTE_NOT_CLOSED') return 'opens a quote that is never closed'
  return `is not valid CSV: ${message.replace(/ at line \d+/, '')}`
}

/**
 * The longest text a record is read over while a quote stays open (a valid book row is far
 * shorter): past it, the quote counts as never closed and the lines after it are read afresh.
 */
const MAX_RECORD_CHARACTERS = 64 * 1024

/** The lines of the file at `path` after its first `skipped`, each with its line end. */
async function* linesAfter(path: string, skipped: number): AsyncIterable<string> {
  let line = 0
  let rest = ''
  for await (const chunk of createReadStream(path, 'utf8') as AsyncIterable<string>) {
    rest += chunk
    let end
    while ((end = rest.indexOf('\n')) !== -1) {
      const text = rest.slice(0, end + 1)
      rest = rest.slice(end + 1)
      if (++line > skipped) yield line === 1 ? text.replace(/^\ufeff/, '') : text
    }
  }
  if (rest !== '' && ++line > skipped) yield line === 1 ? rest.replace(/^\ufeff/, '') : rest
}

/**
 * The rows of a CSV file from just after line `lastGood`, read record by record so that a
 * malformed record (a stray quote, a quote never closed) is a problem of that row alone and every
 * row after it is still read and checked. Slower than the stream parser: used only from the first
 * malformed record on.
 *
 * @throws {BookFileError} when the header itself is malformed.
 */
async function* csvRowsFrom(path: string, lastGood: number, rows: CsvRowReader): AsyncIterable<BookFileRow> {
  const source = linesAfter(path, lastGood)[Symbol.asyncIterator]()
  const requeued: string[] = []
  let record: string[] = []
  let recordStart = lastGood + 1
  let next = lastGood + 1
  for (;;) {
    const line = requeued.length > 0 ? requeued.shift() : (await source.next()).value
    if (line === undefined && record.length === 0) return
    if (line !== undefined) {
      if (record.length === 0) recordStart = next
      record.push(line)
      next++
    }
    let records: string[][]
    try {
      records = parseRecords(record.join(''), { relax_column_count: true })
    } catch (error) {
      if (!isCsvError(error)) throw error
      const open = error.code === 'CSV_QUOTE_NOT_CLOSED'
      if (open && line !== undefined && record.join('').length <= MAX_RECORD_CHARACTERS) continue
      // Over several lines, the quote opened on the first one swallowed the lines after it.
      const reason = record.length > 1 ? csvReason({ code: 'CSV_QUOTE_NOT_CLOSED', message: '' }) : csvReason(error)
      if (!rows.sawHeader) throw new BookFileError(`${path}: not valid CSV at line ${recordStart}: the header row ${reason}`)
      yield { line: recordStart, problem: { kind: 'csv', reason } }
      if (record.length > 1) {
        // Those lines are read again, as records of their own.
        requeued.unshift(...record.slice(1))
        next = recordStart + 1
        rows.skip(recordStart)
      } else rows.skip(next - 1)
      record = []
      continue
    }
    for (const fields of records) {
      const row = rows.read(fields, next - 1)
      if (row) yield row
    }
    if (records.length === 0) rows.skip(next - 1)
    record = []
  }
}

/**
 * Reads the rows of a CSV file (RFC 4180, an optional UTF-8 byte order mark, CRLF or LF line
 * ends) by the rules of {@link CsvRowReader}.
 *
 * @param pastMalformed when true, a malformed record is a row with a {@link CsvProblem} and
 *   reading goes on after it ({@link csvRowsFrom}); when false, it ends the reading.
 * @throws {BookFileError} when the CSV is malformed (with `pastMalformed`, only its header) or has
 *   no header.
 */
async function* csvRows(path: string, pastMalformed: boolean): AsyncIterable<BookFileRow> {
  const parser = createReadStream(path).pipe(parse(CSV_PARSE_OPTIONS))
  const rows = new CsvRowReader()
  let lastGood = 0
  let malformed = false
  try {
    for await (const { record, info } of parser as AsyncIterable<{ record: string[]; info: { lines: number } }>) {
      const row = rows.read(record, info.lines)
      lastGood = info.lines
      if (row) yield row
    }
  } catch (error) {
    if (!pastMalformed || !isCsvError(error)) {
      const { message, lines } = error as Error & { lines?: number }
      throw new BookFileError(`${path}: not valid CSV${lines ? ` at line ${lines}` : ''}: ${message}`)
    }
    malformed = true
  }
  if (malformed) yield* csvRowsFrom(path, lastGood, rows)
  if (!rows.sawHeader) throw new BookFileError(`${path}: empty file (a CSV file starts with the header row ${CSV_COLUMNS.join(',')})`)
}

/** Reads the rows of an NDJSON file: one JSON object per line; blank lines are skipped. */
async function* ndjsonRows(path: string): AsyncIterable<FileRow> {
  const lines = createInterface({ input: createReadStream(path, 'utf8'), crlfDelay: Infinity })
  let line = 0
  for await (const text of lines) {
    const row = ndjsonRow(text, ++line)
    if (row) yield row
  }
}

/**
 * The rows of the file at `path` in `format`, in file order, streamed (memory stays flat
 * whatever the size), as the web page reads them too (web/src/transfer/book-file.ts).
 *
 * @throws {BookFileError} when the file is malformed beyond single rows (CSV only); the file
 *   system's error when it cannot be read.
 */
export function readRows(path: string, format: BookFileFormat): AsyncIterable<FileRow> {
  return format === 'csv' ? (csvRows(path, false) as AsyncIterable<FileRow>) : ndjsonRows(path)
}

/**
 * {@link readRows}, except that a CSV record that is not valid CSV (a stray quote, a quote never
 * closed) is a row with a {@link CsvProblem}, and the rows after it are still read: what `import`
 * checks, so that its refusal lists every invalid row.
 *
 * @throws {BookFileError} when the CSV header is malformed or missing; the file system's error
 *   when it cannot be read.
 */
export function readEveryRow(path: string, format: BookFileFormat): AsyncIterable<BookFileRow> {
  return format === 'csv' ? csvRows(path, true) : ndjsonRows(path)
}
