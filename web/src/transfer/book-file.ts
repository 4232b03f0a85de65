import { parse } from 'csv-parse/browser/esm/sync'
import { CsvRowReader, csvCell, ESCAPED_CELL, ndjsonRow, type FileRow } from '../../../src/book/file-rows.js'
import type { Book } from '../api/books.js'

/**
 * The two file formats of `book-service export` and `import` (docs/data.md "Backups and moving data"), read
 * and written in the browser: CSV per RFC 4180 with the header `id,title,author,year`, and NDJSON,
 * one book per line. The CSV is parsed by csv-parse, the parser the command line uses, with the
 * same options, and each row is made into fields by the same rules, so a file reads the same in
 * both (web/test/book-file.test.ts compares them).
 */
export type BookFileFormat = 'csv' | 'ndjson'

export type { FileProblem, FileRow } from '../../../src/book/file-rows.js'

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

/**
 * The rows of a CSV text by the rules of {@link CsvRowReader}.
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
  const reader = new CsvRowReader()
  const rows = records.map(({ record, info }) => reader.read(record, info.lines)).filter((row) => row !== undefined)
  if (!reader.sawHeader) throw new BookFileError('noHeader', 'no header')
  return rows
}

/** The rows of an NDJSON text: one JSON object per line (lines end with LF, CR LF or CR, as Node's readline reads them); blank lines are skipped. */
function ndjsonRows(text: string): FileRow[] {
  return text
    .split(/\r\n|\n|\r/)
    .map((lineText, index) => ndjsonRow(lineText, index + 1))
    .filter((row) => row !== undefined)
}

/**
 * The rows of `text` in `format`, in file order.
 *
 * @throws {BookFileError} when the file is malformed beyond single rows (CSV only).
 */
export function readRows(text: string, format: BookFileFormat): FileRow[] {
  return format === 'csv' ? csvRows(text) : ndjsonRows(text)
}

/**
 * A CSV field, quoted when it holds a comma, a quote or a line break (quotes doubled), per RFC 4180,
 * or when it is a title or author escaped by `csvCell` (src/book/file-rows.ts).
 */
function csvField(value: string | number): string {
  const text = String(value)
  return /[",\r\n]/.test(text) || ESCAPED_CELL.test(text) ? `"${text.replace(/"/g, '""')}"` : text
}

/**
 * The text of an export of `books` in `format`, as `book-service export` writes it: NDJSON lines,
 * or CSV with the header `id,title,author,year` and CR LF record ends, each title and author that a
 * spreadsheet would take for a formula escaped (`csvCell`, src/book/file-rows.ts).
 */
export function formatBooks(books: Book[], format: BookFileFormat): string {
  if (format === 'ndjson') return books.map(({ id, title, author, year }) => `${JSON.stringify({ id, title, author, year })}\n`).join('')
  const records = [['id', 'title', 'author', 'year'], ...books.map((book) => [book.id, csvCell(book.title), csvCell(book.author), book.year])]
  return records.map((record) => `${record.map(csvField).join(',')}\r\n`).join('')
}
