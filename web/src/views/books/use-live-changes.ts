import { useEffect, useState } from 'preact/hooks'
import { useUi } from '../../app-context.js'

/** Changes of the live feed arriving this close together cause one re-read. */
const CHANGE_SETTLE_MS = 150
/** How long a row changed elsewhere stays highlighted. */
const HIGHLIGHT_MS = 3000

/**
 * Follows the live feed for the book list: each changed book's id is in the returned set for
 * {@link HIGHLIGHT_MS}, and `reload` runs once the changes settle ({@link CHANGE_SETTLE_MS}).
 */
export function useLiveChanges(reload: () => void): ReadonlySet<number> {
  const { subscribe } = useUi()
  const [highlighted, setHighlighted] = useState<ReadonlySet<number>>(new Set())
  useEffect(() => {
    let settle: ReturnType<typeof setTimeout> | undefined
    const clear = new Set<ReturnType<typeof setTimeout>>()
    const unsubscribe = subscribe((change) => {
      if (change.id !== null) {
        const id = change.id
        setHighlighted((ids) => new Set(ids).add(id))
        const timer = setTimeout(() => {
          clear.delete(timer)
          setHighlighted((ids) => new Set([...ids].filter((other) => other !== id)))
        }, HIGHLIGHT_MS)
        clear.add(timer)
      }
      clearTimeout(settle)
      settle = setTimeout(() => reload(), CHANGE_SETTLE_MS)
    })
    return () => {
      unsubscribe()
      clearTimeout(settle)
      clear.forEach(clearTimeout)
    }
  }, [subscribe])
  return highlighted
}
