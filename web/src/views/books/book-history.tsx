import { useEffect, useState } from 'preact/hooks'
import { BookServiceError, type Book, type HistoryEntry, type HistoryPage, type TaggedBook } from '../../../../src/client/index.js'
import { strings } from '../../strings/index.js'
import { useUi } from '../../app-context.js'
import { Dialog } from '../../ui/dialog.js'
import { errorMessage } from '../../ui/error-message.js'
import { useLoad } from '../../ui/use-load.js'
import { HistoryTable } from './history-table.js'
import { RestoreConfirmation } from './restore-confirmation.js'

/** Entries read per page of the history. */
const HISTORY_PAGE = 20

/** Props of {@link BookHistory}. */
export interface BookHistoryProps {
  id: number
  onClose: () => void
  /** A version was restored: the book as stored now. */
  onRestored: (book: Book) => void
}

/** The older pages read after the first ("Show older changes"). */
interface OlderPages {
  entries: HistoryEntry[]
  cursor?: string
  loading: boolean
  error?: string
}

/**
 * The History view of one book (README "History and restore"), in a dialog whose Close stays in
 * view: its changes newest first, a page at a time ("Show older changes"), each with who and when
 * and every field, the ones that differ from the version before marked. Editors and admins get a
 * Restore button on each version that holds a book; it first shows what will change, then
 * restores it with `If-Match`, so a change made meanwhile is not overwritten unseen. Changes from
 * the live feed to this book re-read the history from the newest.
 */
export function BookHistory({ id, onClose, onRestored }: BookHistoryProps) {
  const { client, session, announce, subscribe } = useUi()
  const first = useLoad<HistoryPage>(() => client.history(id, { limit: HISTORY_PAGE }), [id])
  const [older, setOlder] = useState<OlderPages>()
  const [confirming, setConfirming] = useState<{ entry: HistoryEntry; current?: TaggedBook; busy: boolean; message?: string }>()
  const [notice, setNotice] = useState<string>()

  useEffect(() => setOlder(undefined), [first.data])
  useEffect(() => subscribe((change) => change.id === id && first.reload()), [subscribe, id])

  const entries = first.data && [...first.data.entries, ...(older?.entries ?? [])]
  const next = older ? older.cursor : first.data?.cursor

  async function readOlder() {
    if (next === undefined) return
    setOlder((shown) => ({ entries: shown?.entries ?? [], cursor: next, loading: true }))
    try {
      const page = await client.history(id, { limit: HISTORY_PAGE, cursor: next })
      setOlder((shown) => ({ entries: [...(shown?.entries ?? []), ...page.entries], cursor: page.cursor, loading: false }))
    } catch (error) {
      setOlder((shown) => ({ entries: shown?.entries ?? [], cursor: next, loading: false, error: errorMessage(error) }))
    }
  }

  async function askRestore(entry: HistoryEntry) {
    setNotice(undefined)
    let current: TaggedBook | undefined
    try {
      current = await client.getTaggedBook(id)
    } catch (error) {
      if (!(error instanceof BookServiceError && error.status === 404)) return setNotice(errorMessage(error))
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
      first.reload()
    } catch (error) {
      if (!(error instanceof BookServiceError && error.status === 412)) return setConfirming({ ...confirming, busy: false, message: errorMessage(error) })
      setConfirming(undefined)
      setNotice(strings.history.stale)
      first.reload()
    }
  }

  const busy = first.loading || older?.loading === true
  const footer = !confirming && next !== undefined && (
    <button type="button" disabled={busy} onClick={() => void readOlder()}>
      {strings.history.older}
    </button>
  )
  return (
    <Dialog title={strings.history.title(id)} onClose={onClose} footer={footer || undefined} wide>
      {confirming ? (
        <RestoreConfirmation {...confirming} current={confirming.current?.book} onConfirm={() => void restore()} onCancel={() => setConfirming(undefined)} />
      ) : (
        <>
          {notice && (
            <p class="notice" role="alert">
              {notice}
            </p>
          )}
          <HistoryTable
            load={{ data: entries, error: first.error ?? older?.error, reload: first.reload }}
            moreOlder={next !== undefined}
            onRestore={session.rights.write ? (entry) => void askRestore(entry) : undefined}
          />
          {busy && entries && <p aria-busy="true">{strings.loading}</p>}
        </>
      )}
    </Dialog>
  )
}
