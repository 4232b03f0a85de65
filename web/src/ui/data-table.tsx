import type { ComponentChild, ComponentChildren } from 'preact'
import { strings } from '../strings/index.js'
import { LoadFailed } from './load-failed.js'
import type { Load } from './use-load.js'

/** One column of a {@link DataTable}. */
export interface Column<Row> {
  /** The header's text; also each cell's `data-label` (the phone layout shows it beside the value). */
  header: string
  /** What the header cell shows instead of `header` (a sort button, a checkbox). */
  head?: ComponentChild
  /** The header cell's `aria-sort`, for a sorted column. */
  sort?: 'ascending' | 'descending'
  /** The cells carry no `data-label` (a checkbox column). */
  unlabelled?: boolean
  cell: (row: Row) => ComponentChild
  /** A class for the column's header and cells (`column-id`, `webhook-url`). */
  class?: string
}

/** Props of {@link DataTable}. */
export interface DataTableProps<Row> {
  /** What the table shows, read out as its name (hidden unless `showCaption`). */
  caption: string
  showCaption?: boolean
  /** The rows as {@link useLoad} gives them: loading, a failure with "Try again", or the rows. */
  load: Pick<Load<readonly Row[]>, 'data' | 'error' | 'reload'>
  /** Said before the failure's message ("The webhooks could not be loaded."). */
  loadFailed: string
  columns: readonly Column<Row>[]
  /** Each row's stable key (an id, a username). */
  rowKey: (row: Row) => string | number
  /** Extra attributes of a row's `<tr>` (`data-webhook`, `data-status`), for styles and tests. */
  rowAttributes?: (row: Row) => Record<string, string | undefined>
  /** The buttons of a row, in a last "Actions" column; their accessible names should name the row. */
  actions?: (row: Row) => ComponentChildren
  /** The text when there is no row ("No endpoint yet."); empty: nothing is said (a list never empty). */
  empty: string
  /** The table's class (`webhooks`, `accounts`). */
  class?: string
  /** Newer rows are being read: the rows shown stay, the table marked `aria-busy`. */
  busy?: boolean
}

/**
 * A view's table: the caption that names it, a "Loading…" line until the first rows arrive, the
 * failure with its "Try again" button (rows already shown stay), the empty state, and each row's
 * actions in the last column. Wrapped so a wide table scrolls on its own on a narrow screen.
 */
export function DataTable<Row>(props: DataTableProps<Row>) {
  const { caption, showCaption, load, loadFailed, columns, rowKey, rowAttributes, actions, empty } = props
  const rows = load.data
  return (
    <>
      {load.error && <LoadFailed what={loadFailed} error={load.error} onRetry={load.reload} />}
      {!rows && !load.error && <p aria-busy="true">{strings.loading}</p>}
      {rows && rows.length === 0 && empty && <p class="empty">{empty}</p>}
      {rows && rows.length > 0 && (
        <div class="table-wrap">
          <table class={props.class} aria-busy={props.busy ? 'true' : undefined}>
            <caption class={showCaption ? undefined : 'visually-hidden'}>{caption}</caption>
            <thead>
              <tr>
                {columns.map((column) => (
                  <th key={column.header} scope="col" class={column.class} aria-sort={column.sort}>
                    {column.head ?? column.header}
                  </th>
                ))}
                {actions && (
                  <th scope="col" class="actions">
                    {strings.actions}
                  </th>
                )}
              </tr>
            </thead>
            <tbody>
              {rows.map((row) => (
                <tr key={rowKey(row)} {...rowAttributes?.(row)}>
                  {columns.map((column) => (
                    <td key={column.header} data-label={column.unlabelled ? undefined : column.header} class={column.class}>
                      {column.cell(row)}
                    </td>
                  ))}
                  {actions && <td class="actions">{actions(row)}</td>}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  )
}
