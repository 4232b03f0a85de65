import { createContext } from 'preact'
import { useContext } from 'preact/hooks'
import type { BookChangeEvent, BookClient } from '../../src/client/index.js'
import type { FeedState } from './live/change-feed.js'
import type { Session } from './session/session.js'

/*
 * The signed-in page's context: it joins the session and the live feed, so it sits at the page's
 * root beside signed-in.tsx, which provides it, not in ui/ (which imports no feature).
 */

/** What every view of a signed-in person needs. */
export interface Ui {
  session: Session
  /** Calls the service with the session's token; a 401 ends the session. */
  client: BookClient
  /** Ends the session, as a 401 does. */
  endSession: () => void
  /** Says `text` in the page's status line (read out by screen readers). */
  announce: (text: string) => void
  /** Calls `listener` with each change of the live feed; returns the unsubscribe. */
  subscribe: (listener: (change: BookChangeEvent) => void) => () => void
  feedState: FeedState
}

/** The {@link Ui} signed-in.tsx provides to every view of the signed-in page. */
export const UiContext = createContext<Ui | undefined>(undefined)

/** The {@link Ui} of the signed-in person (only inside the signed-in page). */
export function useUi(): Ui {
  const ui = useContext(UiContext)
  if (!ui) throw new Error('useUi outside the signed-in page')
  return ui
}
