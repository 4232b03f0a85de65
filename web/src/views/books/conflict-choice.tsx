import type { Book, BookInput } from '../../api/books.js'
import type { BookField } from '../../book/rules.js'
import { strings } from '../../strings/index.js'
import { SafeText } from '../../ui/safe-text.js'

/** Props of {@link ConflictChoice}. */
export interface ConflictChoiceProps {
  /** The fields both people changed, to different values: the ones to choose. */
  fields: BookField[]
  /** The merged book with this person's values in `fields`. */
  mine: BookInput
  theirs: Book
  /** The fields taken from the saved version without asking (only the other person changed them). */
  takenFromTheirs: BookField[]
  busy: boolean
  /** Why the last attempt failed, if it did. */
  message?: string
  onKeepMine: () => void
  onTakeTheirs: () => void
}

/**
 * After a 412 `Precondition failed` whose merge found fields both people changed (docs/web-page.md "Web
 * page", Conflicts): those fields side by side, this person's value and the saved one, and the
 * choice for them: keep mine or take the saved values. The fields only one side changed are
 * merged already (named below the table); the choice never undoes them.
 */
export function ConflictChoice({ fields, mine, theirs, takenFromTheirs, busy, message, onKeepMine, onTakeTheirs }: ConflictChoiceProps) {
  const names = (list: BookField[]) => list.map((field) => strings.form.fields[field]).join(', ')
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
            {fields.map((field) => (
              <tr key={field} class="differs">
                <th scope="row">{strings.form.fields[field]}</th>
                <td data-version="mine">
                  <SafeText text={String(mine[field])} />
                </td>
                <td data-version="theirs">
                  <SafeText text={String(theirs[field])} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {takenFromTheirs.length > 0 && <p class="muted">{strings.conflict.merged(names(takenFromTheirs))}</p>}
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
