import { parse } from 'csv-parse/browser/esm/sync'
import { CSV_PARSE_OPTIONS, CsvRowReader, formatOfExtension, ndjsonRow, type BookFileFormat, type FileRow } from '../../../src/book/file-format.js'

/**
 * The book files of `book-service export` and `import` as the page reads them: from the text of a
 * file the person picked. The formats themselves (columns, rows, escaping, the writing of books)
 * are src/book/file-format.ts, shared with the command line, and the CSV is parsed by csv-parse,
 * the command line's parser, with the same options, so a file reads the same in both
 * (web/test/book-file.test.ts compares them).
 */

export type { BookFileFormat, FileProblem, FileRow } from '../../../src/book/file-format.js'

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
 * The format of a file: by its name's extension (`formatOfExtension`), else by its first
 * character that is not white space (`{` is NDJSON), else CSV.
 */
export function formatOf(name: string, text: string): BookFileFormat {
  const byName = formatOfExtension(name.match(/\.[^.]*$/)?.[0] ?? '')
  if (byName) return byName
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
    records = parse(text, CSV_PARSE_OPTIONS) as unknown as typeof records
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
