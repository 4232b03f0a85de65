import { parse } from 'csv-parse/browser/esm/sync'
import type { Book } from '../api/books.js'

/**
 * The two file formats of `book-service export` and `import` (README "Backups and moving data"), read
 * and written in the browser: CSV per RFC 4180 with the header `id,title,author,year`, and NDJSON,
 * one book per line. The CSV is parsed by csv-parse, the parser the command line uses, with the
 * same options, and each row is made into fields by the same rules, so a file reads the same in
 * both (web/test/book-file.test.ts compares them).
 */
export type BookFileFormat = 'csv' | 'ndjson'

/** One data row: its first line number (1-based) and its fields, or why it cannot be read. */
export type FileRow = { line: number; value: Record<string, unknown> } | { line: number; problem: FileProblem }

/** Why a row cannot be read at all (before the book rules are checked). */
export type FileProblem = { kind: 'columns'; fields: number; header: number } | { kind: 'notJson' } | { kind: 'notObject' }

/** The file as a whole cannot be read: malformed CSV (with the csv-parse message), or no header. */
export class BookFileError extends Error {
  constructor(
    readonly kind: 'csv' | 'noHeader',
    message: string
  ) {
    super(message)
    this.name = 'BookFileError'
  }
}

/**
 * The format of a file: by its name (`.csv`; `.ndjson`, `.jsonl`, `.json`), else by its first
 * character that is not white space (`{` is NDJSON), else CSV.
 */
export function formatOf(name: string, text: string): BookFileFormat {
  const extension = name.toLowerCase().match(/\.[^.]*$/)?.[0]
  if (extension === '.csv') return 'csv'
  if (extension === '.ndjson' || extension === '.jsonl' || extension === '.json') return 'ndjson'
  return text.replace(/^\ufeff/, '').trimStart().startsWith('{') ? 'ndjson' : 'csv'
}

/** A CSV text field as a number when written as a decimal integer, else unchanged (and so invalid where a number is due). */
function integerField(text: string | undefined): unknown {
  return text !== undefined && /^[+-]?[0-9]+$/.test(text.trim()) ? Number(text.trim()) : text
}

/**
 * The rows of a CSV text: the first record is the header (names matched without case and
 * surrounding space, in any order; unknown columns ignored); `year` and `id` written as decimal
 * integers become numbers; blank lines are skipped; a row with another number of fields than the
 * header is a problem of that row.
 *
 * @throws {BookFileError} when the CSV is malformed (e.g. a quote never closed) or has no header.
 */
function csvRows(text: string): FileRow[] {
  let records: { record: string[]; info: { lines: number } }[]
  try {
    records = parse(text, { bom: true, info: true, relax_column_count: true }) as unknown as typeof records
  } catch (error) {
    const { message, lines } = error as Error & { lines?: number }
    throw new BookFileError('csv', `${lines ? `line ${lines}: ` : ''}${message}`)
  }
  const rows: FileRow[] = []
  let header: string[] | undefined
  let lastLine = 0
  for (const { record, info } of records) {
    const line = lastLine + 1
    lastLine = info.lines
    if (record.length === 1 && record[0] === '') continue
    if (!header) {
      header = record.map((name) => name.trim().toLowerCase())
      continue
    }
    if (record.length !== header.length) {
      rows.push({ line, problem: { kind: 'columns', fields: record.length, header: header.length } })
      continue
    }
    const value: Record<string, unknown> = {}
    header.forEach((name, index) => {
      value[name] = name === 'year' || name === 'id' ? integerField(record[index]) : record[index]
    })
    rows.push({ line, value })
  }
  if (!header) throw new BookFileError('noHeader', 'no header')
  return rows
}

/** The rows of an NDJSON text: one JSON object per line (lines end with LF, CR LF or CR, as Node's readline reads them); blank lines are skipped. */
function ndjsonRows(text: string): FileRow[] {
  const rows: FileRow[] = []
  text
    .replace(/^\ufeff/, '')
    .split(/\r\n|\n|\r/)
    .forEach((lineText, index) => {
      if (lineText.trim() === '') return
      const line = index + 1
      let value: unknown
      try {
        value = JSON.parse(lineText)
      } catch {
        rows.push({ line, problem: { kind: 'notJson' } })
        return
      }
      if (value === null || typeof value !== 'object' || Array.isArray(value)) rows.push({ line, problem: { kind: 'notObject' } })
      else rows.push({ line, value: value as Record<string, unknown> })
    })
  return rows
}

/**
 * The rows of `text` in `format`, in file order.
 *
 * @throws {BookFileError} when the file is malformed beyond single rows (CSV only).
 */
export function readRows(text: string, format: BookFileFormat): FileRow[] {
  return format === 'csv' ? csvRows(text) : ndjsonRows(text)
}

/** A CSV field, quoted when it holds a comma, a quote or a line break (quotes doubled), per RFC 4180. */
function csvField(value: string | number): string {
  const text = String(value)
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text
}

/**
 * The text of an export of `books` in `format`, as `book-service export` writes it: NDJSON lines,
 * or CSV with the header `id,title,author,year` and CR LF record ends.
 */
export function formatBooks(books: Book[], format: BookFileFormat): string {
  if (format === 'ndjson') return books.map(({ id, title, author, year }) => `${JSON.stringify({ id, title, author, year })}\n`).join('')
  const records = [['id', 'title', 'author', 'year'], ...books.map((book) => [book.id, book.title, book.author, book.year])]
  return records.map((record) => `${record.map(csvField).join(',')}\r\n`).join('')
}
