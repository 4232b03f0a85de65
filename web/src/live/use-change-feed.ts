import { useEffect, useMemo, useState } from 'preact/hooks'
import { openChangeFeed, type BookChange, type FeedState } from './change-feed.js'

/**
 * Follows the change feed while `token` is set: its state, and `subscribe` for the views that
 * show books. `onUnauthorized` is the session's end (a 401 from the feed).
 */
export function useChangeFeed(token: string | undefined, onUnauthorized: () => void) {
  const [state, setState] = useState<FeedState>('off')
  const listeners = useMemo(() => new Set<(change: BookChange) => void>(), [])
  useEffect(() => {
    if (!token) return undefined
    const feed = openChangeFeed({
      token,
      onState: setState,
      onUnauthorized,
      onChange: (change) => listeners.forEach((listener) => listener(change))
    })
    return () => feed.close()
  }, [token])
  const subscribe = useMemo(
    () => (listener: (change: BookChange) => void) => {
      listeners.add(listener)
      return () => void listeners.delete(listener)
    },
    [listeners]
  )
  return { state, subscribe }
}
