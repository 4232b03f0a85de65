/**
 * The rows of an imported book file (README "Backups and moving data"), made from CSV records or
 * NDJSON lines by one set of rules, which `book-service import` (reading a file as a stream) and
 * the web page (reading a file the person picked) share, so a file reads the same in both.
 */

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
 * `year` and `id` written as decimal integers become numbers; blank lines are skipped; a record
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
      value[name] = name === 'year' || name === 'id' ? integerField(record[index]) : record[index]
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
