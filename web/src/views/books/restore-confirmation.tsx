import type { Book, HistoryEntry } from '../../../../src/client/index.js'
import { BOOK_FIELDS } from '../../book/rules.js'
import { strings } from '../../strings/index.js'

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
      <div class="table-wrap">
        <table class="versions">
          <thead>
            <tr>
              <th scope="col">{strings.history.field}</th>
              <th scope="col">{strings.history.now}</th>
              <th scope="col">{strings.history.then}</th>
            </tr>
          </thead>
          <tbody>
            {BOOK_FIELDS.map((field) => {
              const differs = current === undefined || String(current[field]) !== String(then[field])
              return (
                <tr key={field} class={differs ? 'differs' : undefined}>
                  <th scope="row">
                    {strings.form.fields[field]}
                    {differs && <span class="badge"> {strings.conflict.differs}</span>}
                  </th>
                  <td data-version="now">{current === undefined ? '—' : String(current[field])}</td>
                  <td data-version="then">{String(then[field])}</td>
                </tr>
              )
            })}
          </tbody>
        </table>
      </div>
      {message && (
        <p class="form-error" role="alert">
          {message}
        </p>
      )}
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
