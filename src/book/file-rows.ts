/**
 * The rows of an imported book file (docs/data.md "Backups and moving data"), made from CSV records or
 * NDJSON lines by one set of rules, which `book-service import` (reading a file as a stream) and
 * the web page (reading a file the person picked) share, so a file reads the same in both.
 */

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
export const ESCAPED_CELL = /^'/

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

/** Why a row cannot be read at all (before the book rules are checked). */
export type FileProblem = { kind: 'columns'; fields: number; header: number } | { kind: 'notJson' } | { kind: 'notObject' }

/** One data row: its first line number (1-based) and its fields, or why it cannot be read. */
export type FileRow = { line: number; value: Record<string, unknown> } | { line: number; problem: FileProblem }

/** A CSV text field as a number when written as a decimal integer, else unchanged (and so invalid where a number is due). */
function integerField(text: string | undefined): unknown {
  return text !== undefined && /^[+-]?[0-9]+$/.test(text.trim()) ? Number(text.trim()) : text
}

/**
 * Makes rows of CSV records as csv-parse gives them (options `bom: true, info: true,
 * relax_column_count: true`), fed in file order. The first record is the header: it names the
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
