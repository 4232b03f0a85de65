import type { Book } from '../../api/books.js'
import { BOOK_FIELDS, type BookField } from '../../book/rules.js'
import { strings } from '../../strings/index.js'
import { FormError } from '../../ui/form-error.js'
import { Modal } from '../../ui/modal.js'
import { SafeText } from '../../ui/safe-text.js'
import type { BookConflict, BookSave } from './use-book-save.js'
import { VersionsTable } from './versions-table.js'

/** Props of {@link ConflictChoice}. */
export interface ConflictChoiceProps extends Pick<BookSave, 'busy' | 'message' | 'save'> {
  /** The merge: `merge.conflicts` are the fields to choose, `merge.merged` holds this person's values in them. */
  conflict: BookConflict
  onClose: () => void
  /** The saved version was taken as it is: nothing of this person's left to save. */
  onTaken: (book: Book) => void
}

/**
 * The dialog after a 412 `Precondition failed` whose merge found fields both people changed
 * (docs/web-page.md "Web page", Conflicts): those fields side by side, this person's value and the saved one, and the
 * choice for them: keep mine (saved over the version shown) or take the saved values. The fields only one side changed are
 * merged already (named below the table); the choice never undoes them.
 */
export function ConflictChoice({ conflict: { stored, merge }, busy, message, save, onClose, onTaken }: ConflictChoiceProps) {
  const names = (list: BookField[]) => list.map((field) => strings.form.fields[field]).join(', ')
  const { conflicts: fields, merged: mine, theirs: takenFromTheirs } = merge
  const theirs = stored.book

  function takeTheirs() {
    const chosen = { ...mine }
    for (const field of fields) (chosen as Record<BookField, unknown>)[field] = theirs[field]
    // Nothing of mine left to save: the stored version as it is.
    if (BOOK_FIELDS.every((field) => String(chosen[field]) === String(theirs[field]))) onTaken(theirs)
    else void save(chosen, { version: stored.etag, merged: true })
  }

  return (
    <Modal title={strings.conflict.title} onClose={onClose} wide>
      <div class="conflict">
        <p>{strings.conflict.intro}</p>
        <VersionsTable
          fieldHeader={strings.conflict.field}
          fields={fields}
          versions={[
            { header: strings.conflict.yours, version: 'mine', cell: (field) => <SafeText text={String(mine[field])} /> },
            { header: strings.conflict.theirs, version: 'theirs', cell: (field) => <SafeText text={String(theirs[field])} /> }
          ]}
          differs={() => true}
        />
        {takenFromTheirs.length > 0 && <p class="muted">{strings.conflict.merged(names(takenFromTheirs))}</p>}
        <FormError message={message} />
        <div class="buttons">
          {/* Saved over the version just shown; the choice stays on screen until the answer
              (another 412 merges with the newer version, another failure shows its message). */}
          <button type="button" class="primary" disabled={busy} onClick={() => void save(mine, { version: stored.etag, merged: takenFromTheirs.length > 0 })}>
            {busy ? strings.saving : strings.conflict.keepMine}
          </button>
          <button type="button" disabled={busy} onClick={takeTheirs}>
            {strings.conflict.takeTheirs}
          </button>
        </div>
      </div>
    </Modal>
  )
}
