import { strings } from '../../strings/index.js'

/** Rows listed by line; more are counted (as `book-service import` does). */
const LISTED = 20

/** The first {@link LISTED} rows as "Line N: why", then how many more. */
export function RowList({ rows }: { rows: readonly { line: number; reason: string }[] }) {
  return (
    <ul>
      {rows.slice(0, LISTED).map((row) => (
        <li key={row.line}>{strings.transfer.line(row.line, row.reason)}</li>
      ))}
      {rows.length > LISTED && <li>{strings.transfer.more(rows.length - LISTED)}</li>}
    </ul>
  )
}
