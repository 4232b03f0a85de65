import type { Book, HistoryEntry } from '../../../../src/client/index.js'
import { BOOK_FIELDS } from '../../book/rules.js'
import { strings } from '../../strings/index.js'
import { FormError } from '../../ui/form-error.js'
import { VersionsTable } from './versions-table.js'

/** Props of {@link RestoreConfirmation}. */
export interface RestoreConfirmationProps {
  entry: HistoryEntry
  /** The book now; undefined when it is deleted. */
  current: Book | undefined
  busy: boolean
  message?: string
  onConfirm: () => void
  onCancel: () => void
}

/** What a restore will change: the book now (none when deleted) beside the version, differing fields marked. */
export function RestoreConfirmation(props: RestoreConfirmationProps) {
  const { entry, current, busy, message } = props
  const then = entry.book!
  return (
    <div class="restore-confirmation">
      <h3>{strings.history.confirmTitle(entry.version)}</h3>
      <p>{strings.history.confirmIntro}</p>
      {!current && <p>{strings.history.confirmBack}</p>}
      <VersionsTable
        fieldHeader={strings.history.field}
        fields={BOOK_FIELDS}
        versions={[
          { header: strings.history.now, version: 'now', cell: (field) => (current === undefined ? '—' : String(current[field])) },
          { header: strings.history.then, version: 'then', cell: (field) => String(then[field]) }
        ]}
        differs={(field) => current === undefined || String(current[field]) !== String(then[field])}
        badge
      />
      <FormError message={message} />
      <div class="buttons">
        <button type="button" class="primary" disabled={busy} onClick={props.onConfirm}>
          {busy ? strings.history.restoring : strings.history.confirm}
        </button>
        <button type="button" disabled={busy} onClick={props.onCancel}>
          {strings.cancel}
        </button>
      </div>
    </div>
  )
}
