import { BookServiceError, type BookChangeEvent, type BookClient, type SubscribeOptions } from '../../../src/client/index.js'

/**
 * The feed's state, for the person: `connecting` (first try), `live`, `reconnecting` (after a
 * break, with a growing delay), `off` (the service has no feed, or it is not for this token).
 */
export type FeedState = 'connecting' | 'live' | 'reconnecting' | 'off'

/** What {@link openChangeFeed} needs. */
export interface ChangeFeedOptions {
  /** The page's client (src/client/): its `subscribe` follows the feed and reconnects. */
  client: BookClient
  onChange: (change: BookChangeEvent) => void
  onState: (state: FeedState) => void
  /** A 401: the token expired or was revoked (the session ends, as on any other call). */
  onUnauthorized: () => void
  /** The client's wait before a reconnection (tests pass their own); default a timer. */
  wait?: SubscribeOptions['wait']
}

/**
 * Follows the change feed with the client's `subscribe` (docs/change-feed.md "Change feed": it
 * reconnects by itself after a break or a 5xx, with `Last-Event-ID`) and tells the page its state:
 * `connecting`, then `live` at each opening and `reconnecting` at each break. An answer
 * reconnecting cannot fix turns it `off` with no retry: a 404 (a service without the feed), a 403,
 * a 200 that is not the feed; a 401 also ends the session.
 *
 * @returns `close()`, which stops it for good.
 */
export function openChangeFeed(options: ChangeFeedOptions): { close(): void } {
  const controller = new AbortController()
  options.onState('connecting')
  options.client
    .subscribe({
      onChange: options.onChange,
      onOpen: () => options.onState('live'),
      onReconnect: () => options.onState('reconnecting'),
      signal: controller.signal,
      ...(options.wait === undefined ? {} : { wait: options.wait })
    })
    .catch((error: unknown) => {
      if (controller.signal.aborted) return
      options.onState('off')
      if (error instanceof BookServiceError && error.status === 401) options.onUnauthorized()
    })
  return { close: () => controller.abort() }
}
