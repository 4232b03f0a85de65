import { useEffect, useMemo, useState } from 'preact/hooks'
import type { BookChangeEvent, BookClient } from '../../../src/client/index.js'
import { openChangeFeed, type FeedState } from './change-feed.js'

/**
 * Follows the change feed with `client` (the session's): its state, and `subscribe` for the views
 * that show books. `onUnauthorized` is the session's end (a 401 from the feed).
 */
export function useChangeFeed(client: BookClient, onUnauthorized: () => void) {
  const [state, setState] = useState<FeedState>('off')
  const listeners = useMemo(() => new Set<(change: BookChangeEvent) => void>(), [])
  useEffect(() => {
    const feed = openChangeFeed({
      client,
      onState: setState,
      onUnauthorized,
      onChange: (change) => listeners.forEach((listener) => listener(change))
    })
    return () => feed.close()
  }, [client])
  const subscribe = useMemo(
    () => (listener: (change: BookChangeEvent) => void) => {
      listeners.add(listener)
      return () => void listeners.delete(listener)
    },
    [listeners]
  )
  return { state, subscribe }
}
