import type { Book, HistoryEntry } from '../../../../src/client/index.js'
import { BOOK_FIELDS } from '../../book/rules.js'
import { strings } from '../../strings/index.js'
import { DataTable, type Column } from '../../ui/data-table.js'
import type { Load } from '../../ui/use-load.js'

/** Props of {@link HistoryTable}. */
export interface HistoryTableProps {
  /** The entries shown, newest first, as {@link DataTable} takes them. */
  load: Pick<Load<readonly HistoryEntry[]>, 'data' | 'error' | 'reload'>
  /** Whether older entries than those shown exist (the last one shown is then compared with nothing yet). */
  moreOlder: boolean
  /** The Restore button of a version that holds a book (editors and admins); none for a reader. */
  onRestore?: (entry: HistoryEntry) => void
}

/** A book's changes as a table: version, change, when, who and the fields, those that changed marked. */
export function HistoryTable({ load, moreOlder, onRestore }: HistoryTableProps) {
  const entries = load.data ?? []
  const columns: Column<HistoryEntry>[] = [
    { header: strings.history.columns.version, cell: (entry) => entry.version },
    { header: strings.history.columns.change, cell: (entry) => strings.history.operations[entry.operation] },
    { header: strings.history.columns.when, cell: (entry) => <time dateTime={entry.at}>{new Date(entry.at).toLocaleString()}</time> },
    { header: strings.history.columns.who, cell: (entry) => entry.actor ?? strings.history.unknownActor },
    { header: strings.history.columns.fields, cell: (entry) => <FieldChanges entry={entry} before={olderBook(entries, entries.indexOf(entry), moreOlder)} /> }
  ]
  return (
    <DataTable
      caption={strings.history.caption}
      load={load}
      loadFailed={strings.history.loadFailed}
      columns={columns}
      rowKey={(entry) => entry.version}
      rowAttributes={(entry) => ({ 'data-version': String(entry.version) })}
      actions={
        onRestore &&
        ((entry) =>
          entry.book && (
            <button type="button" aria-label={strings.history.restoreVersion(entry.version)} onClick={() => onRestore(entry)}>
              {strings.history.restore}
            </button>
          ))
      }
      empty={strings.history.empty}
      class="history"
    />
  )
}

/**
 * The book as it was before `entries[index]`: the nearest older entry holding a book. Null when
 * the older entry is a delete or there is none (the entry created it); undefined when it is not
 * loaded yet (on an older page).
 */
function olderBook(entries: readonly HistoryEntry[], index: number, moreOlder: boolean): Book | null | undefined {
  const older = entries[index + 1]
  if (older === undefined) return moreOlder ? undefined : null
  return older.book
}

/** The fields of an entry's book, those that differ from `before` marked with the old value struck through. */
function FieldChanges({ entry, before }: { entry: HistoryEntry; before: Book | null | undefined }) {
  if (!entry.book) return <span>{strings.history.deletedBook}</span>
  const book = entry.book
  return (
    <ul class="field-changes">
      {BOOK_FIELDS.map((field) => {
        const differs = before !== null && before !== undefined && String(before[field]) !== String(book[field])
        return (
          <li key={field} class={differs ? 'differs' : undefined}>
            <span class="field-name">{strings.form.fields[field]}:</span>{' '}
            {differs ? (
              <>
                <del>{String(before[field])}</del> <span aria-hidden="true">→</span> <ins>{String(book[field])}</ins>
                <span class="badge"> {strings.history.changed}</span>
              </>
            ) : (
              <span>{String(book[field])}</span>
            )}
          </li>
        )
      })}
    </ul>
  )
}

