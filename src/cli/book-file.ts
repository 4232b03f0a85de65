import { createReadStream } from 'node:fs'
import { extname } from 'node:path'
import { createInterface } from 'node:readline'
import { Option } from 'commander'
import { parse } from 'csv-parse'
import { stringify } from 'csv-stringify/sync'
import type { Book } from '../book/schema.js'

/**
 * The two file formats of `book-service export` and `import` (README "Backups and moving data"):
 * CSV per RFC 4180 with the header `id,title,author,year` (CRLF line ends, fields quoted when they
 * hold a comma, a quote or a line break), and NDJSON, one JSON book per line.
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
  const rows = books.map((book) => [book.id, book.title, book.author, book.year])
  // RFC 4180: CRLF record ends; a field holding CR or LF (or a comma or a quote) is quoted.
  return stringify(first ? [[...CSV_COLUMNS], ...rows] : rows, { record_delimiter: 'windows', quoted_match: /[\r\n]/ })
}

/** One data row of an imported file: its first line number (1-based) and its fields, or why it cannot be read. */
export type FileRow = { line: number; value: Record<string, unknown> } | { line: number; problem: string }

/** A file that cannot be read as `format` at all (e.g. an unclosed quote, no header): one line for the operator. */
export class BookFileError extends Error {
  override name = 'BookFileError'
}

/** A CSV text field as a number when it is written as a decimal integer, else unchanged (and so invalid where a number is due). */
function integerField(text: string | undefined): unknown {
  return text !== undefined && /^[+-]?[0-9]+$/.test(text.trim()) ? Number(text.trim()) : text
}

/**
 * Reads the rows of a CSV file (RFC 4180, an optional UTF-8 byte order mark, CRLF or LF line
 * ends). The first record is the header: it names the columns (in any order; names are matched
 * without case and surrounding space; unknown columns are ignored). `year` and `id` written as
 * decimal integers become numbers; blank lines are skipped.
 *
 * @throws {BookFileError} when the CSV is malformed (e.g. a quote never closed) or has no header.
 */
async function* csvRows(path: string): AsyncIterable<FileRow> {
  const parser = createReadStream(path).pipe(parse({ bom: true, info: true, relax_column_count: true }))
  let header: string[] | undefined
  let lastLine = 0
  try {
    for await (const { record, info } of parser as AsyncIterable<{ record: string[]; info: { lines: number } }>) {
      const line = lastLine + 1
      lastLine = info.lines
      if (record.length === 1 && record[0] === '') continue
      if (!header) {
        header = record.map((name) => name.trim().toLowerCase())
        continue
      }
      if (record.length !== header.length) {
        yield { line, problem: `has ${record.length} fields, the header has ${header.length}` }
        continue
      }
      const value: Record<string, unknown> = {}
      header.forEach((name, index) => {
        value[name] = name === 'year' || name === 'id' ? integerField(record[index]) : record[index]
      })
      yield { line, value }
    }
  } catch (error) {
    const { message, lines } = error as Error & { lines?: number }
    throw new BookFileError(`${path}: not valid CSV${lines ? ` at line ${lines}` : ''}: ${message}`)
  }
  if (!header) throw new BookFileError(`${path}: empty file (a CSV file starts with the header row id,title,author,year)`)
}

/** Reads the rows of an NDJSON file: one JSON object per line; blank lines are skipped. */
async function* ndjsonRows(path: string): AsyncIterable<FileRow> {
  const lines = createInterface({ input: createReadStream(path, 'utf8'), crlfDelay: Infinity })
  let line = 0
  for await (const text of lines) {
    line++
    if (text.trim() === '') continue
    let value: unknown
    try {
      value = JSON.parse(line === 1 ? text.replace(/^\ufeff/, '') : text)
    } catch {
      yield { line, problem: 'is not valid JSON' }
      continue
    }
    if (value === null || typeof value !== 'object' || Array.isArray(value)) yield { line, problem: 'is not a JSON object' }
    else yield { line, value: value as Record<string, unknown> }
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
