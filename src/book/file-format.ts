import type { Book } from './schema.js'

/**
 * The two book file formats of `book-service export`/`import` and the web page's export/import
 * (docs/data.md "Backups and moving data"), one set of rules for both: CSV per RFC 4180 with the
 * header `id,title,author,year` (CRLF line ends, fields quoted when they hold a comma, a quote or a
 * line break; a title or author a spreadsheet would take for a formula escaped by {@link csvCell}
 * and quoted), and NDJSON, one JSON book per line. What each side adds is only how it reads and
 * writes the bytes: the command line streams a file (src/cli/book-file.ts), the page holds a
 * picked file's text (web/src/transfer/book-file.ts). No Node.js module here: the page bundles it.
 */
export type BookFileFormat = 'csv' | 'ndjson'

/** The formats, as `--format` accepts them. */
export const BOOK_FILE_FORMATS: readonly BookFileFormat[] = ['ndjson', 'csv']

/** The CSV columns, in order: the header row of an export. */
export const CSV_COLUMNS = ['id', 'title', 'author', 'year'] as const

/**
 * The format a file name's extension implies: `.csv` is CSV; `.ndjson`, `.jsonl` and `.json` are
 * NDJSON (any case).
 *
 * @param extension the extension with its dot (`.csv`), or empty.
 * @returns the format, or undefined for another or no extension.
 */
export function formatOfExtension(extension: string): BookFileFormat | undefined {
  const lower = extension.toLowerCase()
  if (lower === '.csv') return 'csv'
  if (lower === '.ndjson' || lower === '.jsonl' || lower === '.json') return 'ndjson'
  return undefined
}

/**
 * The csv-parse options both readers use (the stream parser on the command line, the browser
 * build's synchronous one on the page): an optional UTF-8 byte order mark, each record's line
 * numbers (`info`), and records of any length (a wrong count is a row's problem, see
 * {@link CsvRowReader}).
 */
export const CSV_PARSE_OPTIONS = { bom: true, info: true, relax_column_count: true } as const

/**
 * The first characters that make a spreadsheet read a CSV cell as a formula (OWASP "CSV
 * Injection": `=`, `+`, `-`, `@`, TAB, CR), and the single quote that marks a cell escaped.
 */
const FORMULA_START = /^[=+\-@\t\r']/

/**
 * A title or author as a CSV export writes it, safe to open in a spreadsheet (docs/data.md "Backups and
 * moving data"): a text starting with `=`, `+`, `-`, `@`, TAB, CR or a single quote `'` gets one
 * `'` in front (`=1+1` is written `'=1+1`, `'quoted` is written `''quoted`), so a spreadsheet
 * shows it as text and {@link csvText} gives back exactly the text; any other text is unchanged.
 * The writer quotes every cell this escapes (those {@link ESCAPED_CELL} matches).
 */
export function csvCell(text: string): string {
  return FORMULA_START.test(text) ? `'${text}` : text
}

/** Matches a written title or author that {@link csvCell} escaped (and only those): the writer quotes it. */
const ESCAPED_CELL = /^'/

/**
 * A title or author read from a CSV field: the undoing of {@link csvCell}. A field starting with
 * `'` followed by `=`, `+`, `-`, `@`, TAB, CR or another `'` loses that first `'`; any other field
 * is kept as it is (a hand-written `'hello` stays `'hello`), so every text round-trips exactly.
 */
export function csvText(field: string): string {
  return field.startsWith("'") && FORMULA_START.test(field.slice(1)) ? field.slice(1) : field
}

/** The CSV columns that hold text, escaped on export by {@link csvCell} and read back by {@link csvText}. */
const TEXT_COLUMNS = new Set(['title', 'author'])

/**
 * How a CSV record is not valid CSV: a quote inside a field that does not start with one, more
 * after a closing quote, a quote never closed, or another csv-parse error (its message in `detail`).
 */
export type CsvFault = 'strayQuote' | 'afterClosingQuote' | 'quoteNotClosed' | 'other'

/** Why a row cannot be read at all (before the book rules are checked). */
export type FileProblem =
  | { kind: 'columns'; fields: number; header: number }
  | { kind: 'notJson' }
  | { kind: 'notObject' }
  | { kind: 'csv'; fault: CsvFault; detail?: string }

/**
 * Why a row cannot be read, in plain words, as `book-service import` and the page's import both
 * list it (`line N: …`).
 */
export function describeProblem(problem: FileProblem): string {
  switch (problem.kind) {
    case 'columns':
      return `has ${problem.fields} fields, the header has ${problem.header}`
    case 'notJson':
      return 'is not valid JSON'
    case 'notObject':
      return 'is not a JSON object'
    case 'csv':
      return describeCsvFault(problem.fault, problem.detail)
  }
}

function describeCsvFault(fault: CsvFault, detail: string | undefined): string {
  if (fault === 'strayQuote') return 'has a quote inside a field that does not start with one (quote the whole field and double each quote in it: "say ""hi""")'
  if (fault === 'afterClosingQuote') return 'has more after a closing quote (a quote inside a quoted field is written twice: "")'
  if (fault === 'quoteNotClosed') return 'opens a quote that is never closed'
  return `is not valid CSV: ${detail ?? ''}`
}

/** csv-parse's errors of malformed CSV (`CSV_…`, `INVALID_OPENING_QUOTE`), as opposed to any other error. */
export function isCsvError(error: unknown): error is Error & { code: string } {
  const code = (error as { code?: unknown } | null)?.code
  return typeof code === 'string' && (code.startsWith('CSV_') || code === 'INVALID_OPENING_QUOTE')
}

/** The problem of a record csv-parse refused with `error`, without csv-parse's own line count. */
function csvProblem({ code, message }: { code: string; message: string }): FileProblem {
  if (code === 'INVALID_OPENING_QUOTE') return { kind: 'csv', fault: 'strayQuote' }
  if (code === 'CSV_INVALID_CLOSING_QUOTE') return { kind: 'csv', fault: 'afterClosingQuote' }
  if (code === 'CSV_QUOTE_NOT_CLOSED') return { kind: 'csv', fault: 'quoteNotClosed' }
  return { kind: 'csv', fault: 'other', detail: message.replace(/ at line \d+/, '') }
}

/** One data row: its first line number (1-based) and its fields, or why it cannot be read. */
export type FileRow = { line: number; value: Record<string, unknown> } | { line: number; problem: FileProblem }

/** A CSV text field as a number when written as a decimal integer, else unchanged (and so invalid where a number is due). */
function integerField(text: string | undefined): unknown {
  return text !== undefined && /^[+-]?[0-9]+$/.test(text.trim()) ? Number(text.trim()) : text
}

/**
 * Makes rows of CSV records as csv-parse gives them (options {@link CSV_PARSE_OPTIONS}), fed in
 * file order. The first record is the header: it names the
 * columns (matched without case and surrounding space, in any order; unknown columns ignored);
 * `year` and `id` written as decimal integers become numbers; `title` and `author` are read by
 * {@link csvText} (the export's formula escaping undone); blank lines are skipped; a record
 * with another number of fields than the header is a problem of that row.
 */
export class CsvRowReader {
  private header: string[] | undefined
  private lastLine = 0

  /** True once the header record has been read (a file without one cannot be imported). */
  get sawHeader(): boolean {
    return this.header !== undefined
  }

  /**
   * Moves past lines that held no readable record (a malformed one), up to line `lines`: the next
   * record read starts after it.
   */
  skip(lines: number): void {
    this.lastLine = lines
  }

  /**
   * The row of `record`, whose last line is `lines` (csv-parse's `info.lines`, 1-based);
   * undefined for the header and for a blank line.
   */
  read(record: string[], lines: number): FileRow | undefined {
    const line = this.lastLine + 1
    this.lastLine = lines
    if (record.length === 1 && record[0] === '') return undefined
    if (!this.header) {
      this.header = record.map((name) => name.trim().toLowerCase())
      return undefined
    }
    if (record.length !== this.header.length) return { line, problem: { kind: 'columns', fields: record.length, header: this.header.length } }
    const value: Record<string, unknown> = {}
    this.header.forEach((name, index) => {
      const field = record[index]
      value[name] = name === 'year' || name === 'id' ? integerField(field) : TEXT_COLUMNS.has(name) && field !== undefined ? csvText(field) : field
    })
    return { line, value }
  }
}

/**
 * The row of one NDJSON line `text` at line number `line` (1-based; a byte order mark at the start
 * of line 1 is ignored): one JSON object; undefined for a blank line.
 */
export function ndjsonRow(text: string, line: number): FileRow | undefined {
  if (text.trim() === '') return undefined
  let value: unknown
  try {
    value = JSON.parse(line === 1 ? text.replace(/^\ufeff/, '') : text)
  } catch {
    return { line, problem: { kind: 'notJson' } }
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return { line, problem: { kind: 'notObject' } }
  return { line, value: value as Record<string, unknown> }
}

/**
 * A CSV field, quoted when it holds a comma, a quote or a line break (quotes doubled), per RFC 4180,
 * or when it is a title or author escaped by {@link csvCell} (OWASP "CSV Injection"; ids and years
 * are numbers, never escaped).
 */
function csvField(value: string | number): string {
  const text = String(value)
  return /[",\r\n]/.test(text) || ESCAPED_CELL.test(text) ? `"${text.replace(/"/g, '""')}"` : text
}

/**
 * The text of `books` in `format`: NDJSON lines (`id`, `title`, `author`, `year`), or CSV records
 * with CRLF ends, each title and author a spreadsheet would take for a formula escaped by
 * {@link csvCell}. Each line ends with its line end, so pages written one after another concatenate.
 *
 * @param first whether these books start the file: a CSV then begins with the header row
 *   ({@link CSV_COLUMNS}), written even for no books.
 */
export function formatBooks(books: readonly Book[], format: BookFileFormat, first = true): string {
  let text = ''
  if (format === 'ndjson') {
    for (const { id, title, author, year } of books) text += `${JSON.stringify({ id, title, author, year })}\n`
    return text
  }
  if (first) text = `${CSV_COLUMNS.join(',')}\r\n`
  for (const book of books) text += `${[book.id, csvField(csvCell(book.title)), csvField(csvCell(book.author)), book.year].join(',')}\r\n`
  return text
}

/**
 * The longest text a record is read over while a quote stays open (a valid book row is far
 * shorter): past it, the quote counts as never closed and the lines after it are read afresh.
 */
const MAX_RECORD_CHARACTERS = 64 * 1024

/** The CSV header row itself is not valid CSV: nothing of the file can be read. */
export class MalformedHeaderError extends Error {
  constructor(
    readonly line: number,
    readonly problem: FileProblem
  ) {
    super(`not valid CSV at line ${line}: the header row ${describeProblem(problem)}`)
    this.name = 'MalformedHeaderError'
  }
}

/**
 * csv-parse's synchronous parse with `relax_column_count` (Node's `csv-parse/sync` on the command
 * line, the browser build on the page): the records of a text, or a thrown csv-parse error.
 */
export type ParseRecords = (text: string) => string[][]

/**
 * Reads CSV lines record by record from the first malformed record on, so that a malformed record
 * (a stray quote, a quote never closed) is a problem of that row alone and every row after it is
 * still read and checked: the one rule by which `book-service import` and the page's import list
 * every bad row. Slower than csv-parse over the whole text, so both readers parse the file whole
 * first and start this after the last record read before the error. Lines are fed with their line
 * ends (a byte order mark of line 1 removed); rows come out in file order.
 */
export class CsvRecovery {
  private readonly queue: string[] = []
  private record: string[] = []
  private recordStart: number
  private next: number

  /**
   * @param parse the synchronous parser ({@link ParseRecords}).
   * @param rows the reader that read the records before, its header included.
   * @param lastGood the last line of the last record read (0 for none): the first line fed is the one after it.
   */
  constructor(
    private readonly parse: ParseRecords,
    private readonly rows: CsvRowReader,
    lastGood: number
  ) {
    this.recordStart = lastGood + 1
    this.next = lastGood + 1
  }

  /**
   * The rows complete once `line` is read.
   *
   * @throws {MalformedHeaderError} when the header row is malformed.
   */
  push(line: string): FileRow[] {
    this.queue.push(line)
    return [...this.drain(false)]
  }

  /**
   * The rows left at the end of the file (a quote still open is a problem of its row).
   *
   * @throws {MalformedHeaderError} when the header row is malformed.
   */
  end(): FileRow[] {
    return [...this.drain(true)]
  }

  private *drain(atEnd: boolean): Generator<FileRow> {
    for (;;) {
      const line = this.queue.shift()
      if (line === undefined && (!atEnd || this.record.length === 0)) return
      if (line !== undefined) {
        if (this.record.length === 0) this.recordStart = this.next
        this.record.push(line)
        this.next++
      }
      let records: string[][]
      try {
        records = this.parse(this.record.join(''))
      } catch (error) {
        if (!isCsvError(error)) throw error
        const open = error.code === 'CSV_QUOTE_NOT_CLOSED'
        if (open && line !== undefined && this.record.join('').length <= MAX_RECORD_CHARACTERS) continue
        // Over several lines, the quote opened on the first one swallowed the lines after it.
        const problem = this.record.length > 1 ? csvProblem({ code: 'CSV_QUOTE_NOT_CLOSED', message: '' }) : csvProblem(error)
        if (!this.rows.sawHeader) throw new MalformedHeaderError(this.recordStart, problem)
        yield { line: this.recordStart, problem }
        if (this.record.length > 1) {
          // Those lines are read again, as records of their own.
          this.queue.unshift(...this.record.slice(1))
          this.next = this.recordStart + 1
          this.rows.skip(this.recordStart)
        } else this.rows.skip(this.next - 1)
        this.record = []
        continue
      }
      for (const fields of records) {
        const row = this.rows.read(fields, this.next - 1)
        if (row) yield row
      }
      if (records.length === 0) this.rows.skip(this.next - 1)
      this.record = []
    }
  }
}
