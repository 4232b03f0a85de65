import { useEffect, useState } from 'preact/hooks'
import { undoDelete, type Book } from '../../api/books.js'
import { runLimited } from '../../api/run-limited.js'
import { strings } from '../../strings/index.js'
import { useUi } from '../../app-context.js'

/** How long the page offers to undo a delete (README "History and restore"). */
const UNDO_MS = 60_000

/** The books just deleted, while their Undo is offered. */
type UndoOffer = { books: Book[]; busy: boolean }

/** What {@link useUndoDelete} gives the list. */
export interface UndoDelete {
  offer: UndoOffer | undefined
  /** Offers to undo the delete of `books` for {@link UNDO_MS}. */
  offerFor: (books: Book[]) => void
  /** Restores the books offered, a few at a time, says how it went, then calls `reload`. */
  undo: () => Promise<void>
}

/** The Undo of the last delete in the book list; `reload` re-reads the list afterwards. */
export function useUndoDelete(reload: () => void): UndoDelete {
  const { client, announce } = useUi()
  const [offer, setOffer] = useState<UndoOffer>()

  useEffect(() => {
    if (!offer || offer.busy) return undefined
    const timer = setTimeout(() => setOffer(undefined), UNDO_MS)
    return () => clearTimeout(timer)
  }, [offer?.books])

  async function undo() {
    if (!offer) return
    setOffer({ ...offer, busy: true })
    const outcomes = await runLimited(offer.books, 4, (book) => undoDelete(client, book.id))
    const back = outcomes.filter((outcome) => outcome.status === 'fulfilled' && outcome.value !== undefined).length
    setOffer(undefined)
    announce(back === offer.books.length ? strings.undo.done(back) : strings.undo.failed)
    reload()
  }

  return { offer, offerFor: (books) => setOffer({ books, busy: false }), undo }
}

/** The bar that says how many books were deleted, with its Undo button. */
export function UndoBar({ undo }: { undo: UndoDelete }) {
  if (!undo.offer) return null
  return (
    <div class="undo-bar">
      <p>{strings.undo.deleted(undo.offer.books.length)}</p>
      <button type="button" disabled={undo.offer.busy} onClick={() => void undo.undo()}>
        {undo.offer.busy ? strings.undo.undoing : strings.undo.undo}
      </button>
    </div>
  )
}
