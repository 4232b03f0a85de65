import type { Book, BookInput } from '../../api/books.js'
import { BOOK_FIELDS } from '../../book/rules.js'
import { strings } from '../../strings/index.js'

/** Props of {@link ConflictChoice}. */
export interface ConflictChoiceProps {
  mine: BookInput
  theirs: Book
  busy: boolean
  /** Why the last attempt failed, if it did. */
  message?: string
  onKeepMine: () => void
  onTakeTheirs: () => void
}

/**
 * The two versions of a book side by side after a 412 `Precondition failed` (someone saved the
 * book after this person opened it; README "Large collections and concurrent edits"), the fields that differ marked,
 * and the choice: save mine over the saved version, or take the saved version.
 */
export function ConflictChoice({ mine, theirs, busy, message, onKeepMine, onTakeTheirs }: ConflictChoiceProps) {
  return (
    <div class="conflict">
      <p>{strings.conflict.intro}</p>
      <div class="table-wrap">
        <table class="versions">
          <thead>
            <tr>
              <th scope="col">{strings.conflict.field}</th>
              <th scope="col">{strings.conflict.yours}</th>
              <th scope="col">{strings.conflict.theirs}</th>
            </tr>
          </thead>
          <tbody>
            {BOOK_FIELDS.map((field) => {
              const differs = String(mine[field]) !== String(theirs[field])
              return (
                <tr key={field} class={differs ? 'differs' : undefined}>
                  <th scope="row">
                    {strings.form.fields[field]}
                    {differs && <span class="badge"> {strings.conflict.differs}</span>}
                  </th>
                  <td data-version="mine">{String(mine[field])}</td>
                  <td data-version="theirs">{String(theirs[field])}</td>
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
        <button type="button" class="primary" disabled={busy} onClick={onKeepMine}>
          {busy ? strings.saving : strings.conflict.keepMine}
        </button>
        <button type="button" disabled={busy} onClick={onTakeTheirs}>
          {strings.conflict.takeTheirs}
        </button>
      </div>
    </div>
  )
}
