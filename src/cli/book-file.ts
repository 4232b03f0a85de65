import { createReadStream } from 'node:fs'
import { extname } from 'node:path'
import { createInterface } from 'node:readline'
import { Option } from 'commander'
import { parse } from 'csv-parse'
import { stringify } from 'csv-stringify/sync'
import { CsvRowReader, csvCell, ESCAPED_CELL, ndjsonRow, type FileProblem, type FileRow } from '../book/file-rows.js'
import type { Book } from '../book/schema.js'

/**
 * The two file formats of `book-service export` and `import` (README "Backups and moving data"):
 * CSV per RFC 4180 with the header `id,title,author,year` (CRLF line ends, fields quoted when they
 * hold a comma, a quote or a line break; a title or author a spreadsheet would take for a formula
 * escaped by `csvCell` and quoted), and NDJSON, one JSON book per line.
 */
export type BookFileFormat = 'csv' | 'ndjson'

/** The formats `--format` accepts. */
export const BOOK_FILE_FORMATS: readonly BookFileFormat[] = ['ndjson', 'csv']

/** The `--format` option of `export` and `import`; `what` is `output` or `input`. */
export function formatOption(what: string): Option {
  return new Option('--format <format>', `${what} format (default: from the file name's extension: .csv, .ndjson/.jsonl)`).choices(
    BOOK_FILE_FORMATS
  )
}

/** The CSV columns, in order (the header row of an export). */
const CSV_COLUMNS = ['id', 'title', 'author', 'year'] as const

/**
 * The format a file name implies: `.csv` is CSV, `.ndjson`, `.jsonl` and `.json` are NDJSON.
 *
 * @returns the format, or undefined for another or no extension.
 */
export function formatOfName(path: string): BookFileFormat | undefined {
  const extension = extname(path).toLowerCase()
  if (extension === '.csv') return 'csv'
  if (['.ndjson', '.jsonl', '.json'].includes(extension)) return 'ndjson'
  return undefined
}

/**
 * Text of one page of books in `format`: NDJSON lines, or CSV records (preceded by the header
 * row when `first`). Each ends with its line end, so pages simply concatenate.
 */
export function formatBooks(books: Book[], format: BookFileFormat, first: boolean): string {
  if (format === 'ndjson') {
    let text = ''
    for (const { id, title, author, year } of books) text += `${JSON.stringify({ id, title, author, year })}\n`
    return text
  }
  const rows = books.map((book) => [book.id, csvCell(book.title), csvCell(book.author), book.year])
  // RFC 4180: CRLF record ends; a field holding CR or LF (or a comma or a quote) is quoted, and so
  // is a cell escaped as a formula's (OWASP "CSV Injection"; ids and years are numbers, never escaped).
  return stringify(first ? [[...CSV_COLUMNS], ...rows] : rows, {
    record_delimiter: 'windows',
    quoted_match: [/[\r\n]/, ESCAPED_CELL]
  })
}

/** A file that cannot be read as `format` at all (e.g. an unclosed quote, no header): one line for the operator. */
export class BookFileError extends Error {
  override name = 'BookFileError'
}

/** Why a row cannot be read, as the import's refusal lists it (`line N: …`). */
export function describeProblem(problem: FileProblem): string {
  if (problem.kind === 'columns') return `has ${problem.fields} fields, the header has ${problem.header}`
  return problem.kind === 'notJson' ? 'is not valid JSON' : 'is not a JSON object'
}

/**
 * Reads the rows of a CSV file (RFC 4180, an optional UTF-8 byte order mark, CRLF or LF line
 * ends) by the rules of {@link CsvRowReader}.
 *
 * @throws {BookFileError} when the CSV is malformed (e.g. a quote never closed) or has no header.
 */
async function* csvRows(path: string): AsyncIterable<FileRow> {
  const parser = createReadStream(path).pipe(parse({ bom: true, info: true, relax_column_count: true }))
  const rows = new CsvRowReader()
  try {
    for await (const { record, info } of parser as AsyncIterable<{ record: string[]; info: { lines: number } }>) {
      const row = rows.read(record, info.lines)
      if (row) yield row
    }
  } catch (error) {
    const { message, lines } = error as Error & { lines?: number }
    throw new BookFileError(`${path}: not valid CSV${lines ? ` at line ${lines}` : ''}: ${message}`)
  }
  if (!rows.sawHeader) throw new BookFileError(`${path}: empty file (a CSV file starts with the header row id,title,author,year)`)
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
 * whatever the size).
 *
 * @throws {BookFileError} when the file is malformed beyond single rows (CSV only); the file
 *   system's error when it cannot be read.
 */
export function readRows(path: string, format: BookFileFormat): AsyncIterable<FileRow> {
  return format === 'csv' ? csvRows(path) : ndjsonRows(path)
}
