import { parse } from 'csv-parse/browser/esm/sync'
import {
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
} from '../../../src/book/file-format.js'

/**
 * The book files of `book-service export` and `import` as the page reads them: from the text of a
 * file the person picked. The formats themselves (columns, rows, escaping, the writing of books)
 * are src/book/file-format.ts, shared with the command line, and the CSV is parsed by csv-parse,
 * the command line's parser, with the same options, so a file reads the same in both
 * (web/test/book-file.test.ts compares them).
 */

export type { BookFileFormat, FileProblem, FileRow } from '../../../src/book/file-format.js'

/** The file as a whole cannot be read: a malformed CSV header row, or no header. */
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

/** The browser build's synchronous parse of one record's lines. */
const parseRecord: ParseRecords = (text) => parse(text, { relax_column_count: true }) as string[][]

/** The lines of `text` after its first `skipped`, each with its line end (LF, so CR LF too); a byte order mark of line 1 removed. */
function linesAfter(text: string, skipped: number): string[] {
  const lines = text.replace(/^\ufeff/, '').match(/[^\n]*\n|[^\n]+$/g) ?? []
  return lines.slice(skipped)
}

/**
 * The rows of a CSV text by the rules of {@link CsvRowReader}; a record that is not valid CSV
 * (a stray quote, a quote never closed) is a row with a `csv` problem and the rows after it are
 * still read, by the rule `book-service import` follows too ({@link CsvRecovery}).
 *
 * @throws {BookFileError} when the header is malformed or missing.
 */
function csvRows(text: string): FileRow[] {
  const reader = new CsvRowReader()
  const rows: FileRow[] = []
  let lastGood = 0
  try {
    parse(text, {
      ...CSV_PARSE_OPTIONS,
      info: false,
      on_record: (record: string[], { lines }: { lines: number }) => {
        const row = reader.read(record, lines)
        lastGood = lines
        if (row) rows.push(row)
        return null
      }
    })
  } catch (error) {
    if (!isCsvError(error)) throw error
    const recovery = new CsvRecovery(parseRecord, reader, lastGood)
    try {
      for (const line of linesAfter(text, lastGood)) rows.push(...recovery.push(line))
      rows.push(...recovery.end())
    } catch (malformed) {
      if (malformed instanceof MalformedHeaderError) throw new BookFileError('csv', malformed.message)
      throw malformed
    }
  }
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
 * @throws {BookFileError} when a CSV file's header is malformed or missing.
 */
export function readRows(text: string, format: BookFileFormat): FileRow[] {
  return format === 'csv' ? csvRows(text) : ndjsonRows(text)
}
