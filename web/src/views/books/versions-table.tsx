import type { ComponentChild } from 'preact'
import type { BookField } from '../../book/rules.js'
import { strings } from '../../strings/index.js'

/** One of the two versions a {@link VersionsTable} sets side by side. */
export interface VersionColumn {
  header: string
  /** The cells' `data-version` (`mine`, `theirs`, `now`, `then`). */
  version: string
  cell: (field: BookField) => ComponentChild
}

/** Props of {@link VersionsTable}. */
export interface VersionsTableProps {
  /** The first column's header ("Field"). */
  fieldHeader: string
  fields: readonly BookField[]
  versions: readonly [VersionColumn, VersionColumn]
  /** Whether the two versions differ in `field`: its row is marked `differs`. */
  differs: (field: BookField) => boolean
  /** Also say "differs" next to such a field's name (when not every row differs). */
  badge?: boolean
}

/** Two versions of a book field by field, one row a field (a conflict, a restore). */
export function VersionsTable({ fieldHeader, fields, versions, differs, badge }: VersionsTableProps) {
  return (
    <div class="table-wrap">
      <table class="versions">
        <thead>
          <tr>
            <th scope="col">{fieldHeader}</th>
            {versions.map((column) => (
              <th key={column.version} scope="col">
                {column.header}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {fields.map((field) => (
            <tr key={field} class={differs(field) ? 'differs' : undefined}>
              <th scope="row">
                {strings.form.fields[field]}
                {badge && differs(field) && <span class="badge"> {strings.conflict.differs}</span>}
              </th>
              {versions.map((column) => (
                <td key={column.version} data-version={column.version}>
                  {column.cell(field)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}
