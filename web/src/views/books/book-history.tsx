import { useEffect, useReducer, useState } from 'preact/hooks'
import { BookServiceError, type Book, type HistoryEntry, type TaggedBook } from '../../../../src/client/index.js'
import { BOOK_FIELDS } from '../../book/rules.js'
import { strings } from '../../strings/index.js'
import { useUi } from '../../app-context.js'
import { errorMessage } from '../../ui/error-message.js'
import { Modal } from '../../ui/modal.js'

/** Entries read per page of the history. */
const HISTORY_PAGE = 20

/** Props of {@link BookHistory}. */
export interface BookHistoryProps {
  id: number
  onClose: () => void
  /** A version was restored: the book as stored now. */
  onRestored: (book: Book) => void
}

/**
 * The History view of one book (README "History and restore"), in a dialog: its changes newest
 * first, a page at a time ("Show older changes"), each with who and when and every field, the
 * ones that differ from the version before marked (old value struck through, new one inserted).
 * Editors and admins get a Restore button on each version that holds a book; it first shows what
 * will change (the book now beside that version, differing fields marked), then restores it with
 * `If-Match`, so a change made meanwhile is not overwritten unseen. A reader sees no restore
 * control. Changes from the live feed to this book re-read the history.
 */
export function BookHistory({ id, onClose, onRestored }: BookHistoryProps) {
  const { client, session, announce, subscribe } = useUi()
  const write = session.rights.write
  const [entries, setEntries] = useState<HistoryEntry[]>([])
  const [next, setNext] = useState<string>()
  const [state, setState] = useState<{ loading: boolean; error?: string }>({ loading: true })
  const [reloads, reload] = useReducer((count: number, _action: void) => count + 1, 0)
  const [confirming, setConfirming] = useState<{ entry: HistoryEntry; current?: TaggedBook; busy: boolean; message?: string }>()
  const [notice, setNotice] = useState<string>()

  useEffect(() => {
    let current = true
    setState({ loading: true })
    client.history(id, { limit: HISTORY_PAGE }).then(
      (page) => {
        if (!current) return
        setEntries(page.entries)
        setNext(page.cursor)
        setState({ loading: false })
      },
      (error: unknown) => current && setState({ loading: false, error: errorMessage(error) })
    )
    return () => {
      current = false
    }
  }, [id, reloads])

  useEffect(() => subscribe((change) => change.id === id && reload()), [subscribe, id])

  async function older() {
    if (next === undefined) return
    setState({ loading: true })
    try {
      const page = await client.history(id, { limit: HISTORY_PAGE, cursor: next })
      setEntries((shown) => [...shown, ...page.entries])
      setNext(page.cursor)
      setState({ loading: false })
    } catch (error) {
      setState({ loading: false, error: errorMessage(error) })
    }
  }

  async function askRestore(entry: HistoryEntry) {
    setNotice(undefined)
    let current: TaggedBook | undefined
    try {
      current = await client.getTaggedBook(id)
    } catch (error) {
      if (!(error instanceof BookServiceError && error.status === 404)) {
        setNotice(errorMessage(error))
        return
      }
    }
    setConfirming({ entry, current, busy: false })
  }

  async function restore() {
    if (!confirming) return
    const { entry, current } = confirming
    setConfirming({ ...confirming, busy: true })
    try {
      const book = await client.restore(id, entry.version, { ifMatch: current?.etag })
      setConfirming(undefined)
      announce(strings.history.restored(book.title, entry.version))
      onRestored(book)
      reload()
    } catch (error) {
      if (error instanceof BookServiceError && error.status === 412) {
        setConfirming(undefined)
        setNotice(strings.history.stale)
        reload()
        return
      }
      setConfirming({ ...confirming, busy: false, message: errorMessage(error) })
    }
  }

  return (
    <Modal title={strings.history.title(id)} onClose={onClose} wide>
      {confirming ? (
        <RestoreConfirmation
          entry={confirming.entry}
          current={confirming.current?.book}
          busy={confirming.busy}
          message={confirming.message}
          onConfirm={() => void restore()}
          onCancel={() => setConfirming(undefined)}
        />
      ) : (
        <>
          {notice && (
            <p class="notice" role="alert">
              {notice}
            </p>
          )}
          {state.error && (
            <p class="form-error" role="alert">
              {strings.history.loadFailed} {state.error}
            </p>
          )}
          {!state.error && entries.length === 0 && !state.loading && <p>{strings.history.empty}</p>}
          {entries.length > 0 && (
            <div class="table-wrap">
              <table class="history" aria-busy={state.loading ? 'true' : undefined}>
                <caption class="visually-hidden">{strings.history.caption}</caption>
                <thead>
                  <tr>
                    <th scope="col">{strings.history.columns.version}</th>
                    <th scope="col">{strings.history.columns.change}</th>
                    <th scope="col">{strings.history.columns.when}</th>
                    <th scope="col">{strings.history.columns.who}</th>
                    <th scope="col">{strings.history.columns.fields}</th>
                    {write && <th scope="col">{strings.books.columns.actions}</th>}
                  </tr>
                </thead>
                <tbody>
                  {entries.map((entry, index) => (
                    <tr key={entry.version} data-version={entry.version}>
                      <td data-label={strings.history.columns.version}>{entry.version}</td>
                      <td data-label={strings.history.columns.change}>{strings.history.operations[entry.operation]}</td>
                      <td data-label={strings.history.columns.when}>
                        <time dateTime={entry.at}>{new Date(entry.at).toLocaleString()}</time>
                      </td>
                      <td data-label={strings.history.columns.who}>{entry.actor ?? strings.history.unknownActor}</td>
                      <td data-label={strings.history.columns.fields}>
                        <FieldChanges entry={entry} before={olderBook(entries, index, next !== undefined)} />
                      </td>
                      {write && (
                        <td class="actions">
                          {entry.book && (
                            <button type="button" aria-label={strings.history.restoreVersion(entry.version)} onClick={() => void askRestore(entry)}>
                              {strings.history.restore}
                            </button>
                          )}
                        </td>
                      )}
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
          {state.loading && <p aria-busy="true">{strings.loading}</p>}
          <div class="buttons history-actions">
            {next !== undefined && (
              <button type="button" disabled={state.loading} onClick={() => void older()}>
                {strings.history.older}
              </button>
            )}
            <button type="button" onClick={onClose}>
              {strings.history.close}
            </button>
          </div>
        </>
      )}
    </Modal>
  )
}

/**
 * The book as it was before `entries[index]`: the nearest older entry holding a book. Null when
 * the older entry is a delete or there is none (the entry created it); undefined when it is not
 * loaded yet (on an older page).
 */
function olderBook(entries: HistoryEntry[], index: number, moreOlder: boolean): Book | null | undefined {
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

/** What a restore will change: the book now (none when deleted) beside the version, differing fields marked. */
function RestoreConfirmation(props: {
  entry: HistoryEntry
  current: Book | undefined
  busy: boolean
  message?: string
  onConfirm: () => void
  onCancel: () => void
}) {
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
