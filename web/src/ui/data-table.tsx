import type { ComponentChild, ComponentChildren } from 'preact'
import { strings } from '../strings/index.js'
import type { Load } from './use-load.js'

/** One column of a {@link DataTable}. */
export interface Column<Row> {
  /** The header's text; also each cell's `data-label` (the phone layout shows it beside the value). */
  header: string
  /** The cell of `row`. */
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
  /** The text when there is no row ("No endpoint yet."). */
  empty: string
  /** The table's class (`webhooks`, `accounts`). */
  class?: string
}

/**
 * A view's table: the caption that names it, a "Loading…" line until the first rows arrive, the
 * failure with its "Try again" button (rows already shown stay), the empty state, and each row's
 * actions in the last column. Wrapped so a wide table scrolls on its own on a narrow screen.
 */
export function DataTable<Row>({ caption, showCaption, load, loadFailed, columns, rowKey, rowAttributes, actions, empty, class: className }: DataTableProps<Row>) {
  const rows = load.data
  return (
    <>
      {load.error && (
        <div class="notice" role="alert">
          <p>
            {loadFailed} {load.error}
          </p>
          <button type="button" onClick={() => load.reload()}>
            {strings.retry}
          </button>
        </div>
      )}
      {!rows && !load.error && <p aria-busy="true">{strings.loading}</p>}
      {rows && rows.length === 0 && <p class="empty">{empty}</p>}
      {rows && rows.length > 0 && (
        <div class="table-wrap">
          <table class={className}>
            <caption class={showCaption ? undefined : 'visually-hidden'}>{caption}</caption>
            <thead>
              <tr>
                {columns.map((column) => (
                  <th key={column.header} scope="col" class={column.class}>
                    {column.header}
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
                    <td key={column.header} data-label={column.header} class={column.class}>
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
