import stringWidth from 'string-width'

/**
 * The one output convention of the command line's listings (`history`, `user list`,
 * `webhooks list|add|deliveries`, `api-token list`; docs/command-line.md): for people an aligned
 * table, a header of upper-case column names and one line per row, each column as wide as its
 * widest cell in terminal columns (`string-width`: a CJK character takes two, a combining accent
 * none, so such titles stay aligned), two spaces apart; for programs, with `--json`, one JSON
 * object per line (NDJSON), the API's field names as keys.
 */
export interface Listing<Row> {
  /** The columns, in order: the header and how each row's cell is written. */
  columns: ReadonlyArray<{ header: string; cell: (row: Row) => string }>
  /** What `--json` prints for a row (the API's view of it). */
  json: (row: Row) => unknown
}

/**
 * The aligned table of `rows`: the header line, then one line per row, cells padded to their
 * column's display width, trailing spaces trimmed.
 */
export function table<Row>(listing: Listing<Row>, rows: readonly Row[]): string {
  const lines = [listing.columns.map((column) => column.header), ...rows.map((row) => listing.columns.map((column) => column.cell(row)))]
  const widths = listing.columns.map((_, index) => Math.max(...lines.map((line) => stringWidth(line[index]!))))
  return lines.map((line) => line.map((cell, index) => cell + ' '.repeat(widths[index]! - stringWidth(cell))).join('  ').trimEnd() + '\n').join('')
}

/** `rows` as NDJSON: one line per row, {@link Listing.json} of it. */
export function jsonLines<Row>(listing: Listing<Row>, rows: readonly Row[]): string {
  return rows.map((row) => `${JSON.stringify(listing.json(row))}\n`).join('')
}

/** Writes `rows` to stdout as the convention says: {@link jsonLines} with `json`, else the {@link table}. */
export function printListing<Row>(listing: Listing<Row>, rows: readonly Row[], json: boolean | undefined): void {
  process.stdout.write(json ? jsonLines(listing, rows) : table(listing, rows))
}
