import { useCallback, useEffect, useMemo, useRef, useState } from 'preact/hooks'
import { pageClient } from './api/client.js'
import { useChangeFeed } from './live/use-change-feed.js'
import { CurrentView, VIEW_TITLES, viewsOf } from './routing/routes.js'
import { useRoute } from './routing/use-route.js'
import type { Session } from './session/session.js'
import { strings } from './strings/index.js'
import { TopBar } from './top-bar.js'
import { UiContext, type Ui } from './app-context.js'
import { OwnPassword } from './views/own-password.js'

/** How long a status message stays before it clears itself, in milliseconds. */
export const STATUS_MS = 8000

/** Props of {@link SignedIn}. */
export interface SignedInProps {
  session: Session
  endSession: (message: string) => void
  /** The session goes on with a new token (after changing one's own password). */
  replaceToken: (token: string) => void
}

/**
 * The signed-in page: header with navigation (and the API document, `/docs`) and the session
 * (changing one's own password, signing out), the current view, the status line.
 */
export function SignedIn({ session, endSession, replaceToken }: SignedInProps) {
  const [changingPassword, setChangingPassword] = useState(false)
  const passwordDialogOpen = useRef(false)
  passwordDialogOpen.current = changingPassword
  const [route, navigate] = useRoute()
  // Each message with a serial number: the same text announced again restarts its wait.
  const [status, setStatus] = useState({ text: '', serial: 0 })
  const announce = useCallback((text: string) => setStatus((previous) => ({ text, serial: previous.serial + 1 })), [])
  // A message clears itself after STATUS_MS (a newer one restarts the wait), and on moving to another view.
  useEffect(() => {
    if (status.text === '') return undefined
    const timer = setTimeout(() => announce(''), STATUS_MS)
    return () => clearTimeout(timer)
  }, [status])
  const client = useMemo(() => pageClient({ token: session.token, onUnauthorized: () => endSession(strings.session.ended) }), [session])
  // Changing one's own password revokes the token the feed streams with: its 401 then is expected
  // (the page signs in again with the new password), not the session's end.
  const feed = useChangeFeed(client, () => {
    if (!passwordDialogOpen.current) endSession(strings.session.ended)
  })
  const ui = useMemo<Ui>(
    () => ({ session, client, endSession: () => endSession(strings.session.ended), announce, subscribe: feed.subscribe, feedState: feed.state }),
    [session, client, feed.state]
  )
  const views = viewsOf(session)

  // Focus the new view's heading when the person moves between views (not on the first render).
  const shownView = useRef(route.view)
  useEffect(() => {
    document.title = `${VIEW_TITLES[route.view]} – ${strings.appName}`
    if (shownView.current !== route.view) {
      document.querySelector<HTMLElement>('main h1')?.focus()
      announce('')
    }
    shownView.current = route.view
  }, [route.view])

  return (
    <UiContext.Provider value={ui}>
      <a class="skip-link" href="#main">
        {strings.skipToContent}
      </a>
      <TopBar
        session={session}
        views={views}
        current={route.view}
        feedState={feed.state}
        onChangePassword={() => setChangingPassword(true)}
        onSignOut={() => endSession(strings.session.signedOut)}
      />
      <main id="main" tabIndex={-1}>
        {session.unknownRole && (
          <p class="notice" role="alert">
            {strings.session.noRights}
          </p>
        )}
        <CurrentView route={route} navigate={navigate} allowed={views.includes(route.view)} />
      </main>
      {changingPassword && (
        <OwnPassword
          onClose={() => setChangingPassword(false)}
          onChanged={(token) => {
            setChangingPassword(false)
            replaceToken(token)
            announce(strings.ownPassword.changed)
          }}
        />
      )}
      {/* Always in the page (empty: no height), so screen readers announce each new message politely. */}
      <p class="status-line" role="status" aria-live="polite" aria-atomic="true">
        {status.text}
      </p>
    </UiContext.Provider>
  )
}
