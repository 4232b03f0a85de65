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
  CsvRecovery,
  CsvRowReader,
  formatOfExtension,
  isCsvError,
  MalformedHeaderError,
  ndjsonRow,
  type BookFileFormat,
  type FileRow,
  type ParseRecords
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

/** csv-parse's synchronous parse of one record's lines. */
const parseRecord: ParseRecords = (text) => parseRecords(text, { relax_column_count: true })

/**
 * The rows of a CSV file from just after line `lastGood`, by the rule of {@link CsvRecovery}
 * (a malformed record is a problem of its row alone).
 *
 * @throws {BookFileError} when the header itself is malformed.
 */
async function* csvRowsFrom(path: string, lastGood: number, rows: CsvRowReader): AsyncIterable<FileRow> {
  const recovery = new CsvRecovery(parseRecord, rows, lastGood)
  try {
    for await (const line of linesAfter(path, lastGood)) yield* recovery.push(line)
    yield* recovery.end()
  } catch (error) {
    if (error instanceof MalformedHeaderError) throw new BookFileError(`${path}: ${error.message}`)
    throw error
  }
}

/**
 * Reads the rows of a CSV file (RFC 4180, an optional UTF-8 byte order mark, CRLF or LF line
 * ends) by the rules of {@link CsvRowReader}.
 *
 * @param pastMalformed when true, a malformed record is a row with a `csv` problem and
 *   reading goes on after it ({@link csvRowsFrom}); when false, it ends the reading.
 * @throws {BookFileError} when the CSV is malformed (with `pastMalformed`, only its header) or has
 *   no header.
 */
async function* csvRows(path: string, pastMalformed: boolean): AsyncIterable<FileRow> {
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
  return format === 'csv' ? csvRows(path, false) : ndjsonRows(path)
}

/**
 * {@link readRows}, except that a CSV record that is not valid CSV (a stray quote, a quote never
 * closed) is a row with a `csv` problem, and the rows after it are still read: what `import`
 * checks, so that its refusal lists every invalid row.
 *
 * @throws {BookFileError} when the CSV header is malformed or missing; the file system's error
 *   when it cannot be read.
 */
export function readEveryRow(path: string, format: BookFileFormat): AsyncIterable<FileRow> {
  return format === 'csv' ? csvRows(path, true) : ndjsonRows(path)
}
