import type { ComponentType } from 'preact'
import { useCallback, useEffect, useMemo, useRef, useState } from 'preact/hooks'
import { pageClient } from './api/client.js'
import { useChangeFeed } from './live/use-change-feed.js'
import { useRoute } from './routing/use-route.js'
import type { Route, View } from './routing/view-state.js'
import { forgetToken, keepToken, sessionOf, storedSession, type Session } from './session/session.js'
import { strings } from './strings/index.js'
import { UiContext, type Ui } from './app-context.js'
import { AccountsView } from './views/accounts/accounts-view.js'
import { ApiTokensView } from './views/api-tokens/api-tokens-view.js'
import { BooksView } from './views/books/books-view.js'
import { OwnPassword } from './views/own-password.js'
import { SignIn } from './views/sign-in.js'
import { WebhooksView } from './views/webhooks/webhooks-view.js'

/** How long a status message stays before it clears itself, in milliseconds. */
export const STATUS_MS = 8000

/** Longest delay a browser timer takes (about 24.8 days); a later expiry is checked again then. */
const LONGEST_TIMER_MS = 2 ** 31 - 1

/**
 * The page: the sign-in form while nobody is signed in in this tab, else the signed-in page.
 * The token is kept in sessionStorage (this tab only). The session ends, back to the sign-in
 * form with a message, when the token expires, when the service answers 401 to any call (a
 * revoked token: the account was changed or deleted), or on "Sign out".
 */
export function App() {
  const initial = useMemo(() => storedSession(), [])
  const [session, setSession] = useState(initial.session)
  const [notice, setNotice] = useState(initial.expired ? strings.session.expired : undefined)

  const endSession = useCallback((message: string) => {
    forgetToken()
    setSession(undefined)
    setNotice(message)
  }, [])

  useEffect(() => {
    if (session?.expiresAt === undefined) return undefined
    let timer: ReturnType<typeof setTimeout>
    const check = () => {
      const left = session.expiresAt! - Date.now()
      if (left <= 0) endSession(strings.session.expired)
      else timer = setTimeout(check, Math.min(left, LONGEST_TIMER_MS))
    }
    check()
    return () => clearTimeout(timer)
  }, [session])

  if (!session) {
    return (
      <SignIn
        notice={notice}
        onSignedIn={(token) => {
          keepToken(token)
          setNotice(undefined)
          setSession(sessionOf(token))
        }}
      />
    )
  }
  return (
    <SignedIn
      session={session}
      endSession={endSession}
      replaceToken={(token) => {
        keepToken(token)
        setSession(sessionOf(token))
      }}
    />
  )
}

/** The title of each view (the heading, the document's title, the navigation). */
const VIEW_TITLES: Record<View, string> = {
  books: strings.nav.books,
  accounts: strings.nav.accounts,
  transfer: strings.nav.transfer,
  webhooks: strings.nav.webhooks,
  tokens: strings.nav.tokens
}

/** Props of {@link SignedIn}. */
interface SignedInProps {
  session: Session
  endSession: (message: string) => void
  /** The session goes on with a new token (after changing one's own password). */
  replaceToken: (token: string) => void
}

/**
 * The signed-in page: header with navigation (and the API document, `/docs`) and the session
 * (changing one's own password, signing out), the current view, the status line.
 */
function SignedIn({ session, endSession, replaceToken }: SignedInProps) {
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
  const views: View[] = ['books', ...(session.rights.admin ? ['accounts' as const] : []), ...(session.rights.write ? ['transfer' as const] : []), ...(session.rights.admin ? ['webhooks' as const] : []), ...(session.rights.read ? ['tokens' as const] : [])]

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
      <header class="top">
        <p class="app-name">{strings.appName}</p>
        <nav aria-label={strings.nav.label}>
          <ul>
            {views.map((view) => (
              <li key={view}>
                <a href={`#/${view}`} aria-current={route.view === view ? 'page' : undefined}>
                  {VIEW_TITLES[view]}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <div class="session">
          <a class="api-docs" href="/docs">
            {strings.apiDocs}
          </a>
          <span class={`live live-${feed.state}`}>{liveText(feed.state)}</span>
          <span class="who">{strings.session.signedInAs(session.username || '—', session.role ?? strings.session.roleFull)}</span>
          {session.username && (
            <button type="button" onClick={() => setChangingPassword(true)}>
              {strings.ownPassword.open}
            </button>
          )}
          <button type="button" onClick={() => endSession(strings.session.signedOut)}>
            {strings.session.signOut}
          </button>
        </div>
      </header>
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

function liveText(state: string): string {
  if (state === 'live') return strings.live.on
  if (state === 'connecting') return strings.live.connecting
  if (state === 'reconnecting') return strings.live.reconnecting
  return strings.live.off
}

/** The view the route names; import and export are loaded on first use (they bring the CSV parser). */
function CurrentView({ route, navigate, allowed }: { route: Route; navigate: (route: Route, options?: { replace?: boolean }) => void; allowed: boolean }) {
  const [Transfer, setTransfer] = useState<ComponentType>()
  useEffect(() => {
    if (route.view === 'transfer' && allowed && !Transfer) {
      void import('./views/transfer/transfer-view.js').then((module) => setTransfer(() => module.TransferView))
    }
  }, [route.view, allowed])
  if (!allowed) {
    return (
      <>
        <h1 tabIndex={-1}>{VIEW_TITLES[route.view]}</h1>
        <p class="notice">{strings.errors.forbidden}</p>
      </>
    )
  }
  if (route.view === 'accounts') return <AccountsView />
  if (route.view === 'webhooks') return <WebhooksView />
  if (route.view === 'tokens') return <ApiTokensView />
  if (route.view === 'transfer') {
    return Transfer ? (
      <Transfer />
    ) : (
      <>
        <h1 tabIndex={-1}>{VIEW_TITLES.transfer}</h1>
        <p>{strings.loading}</p>
      </>
    )
  }
  return <BooksView query={route.books} navigate={(books, options) => navigate({ view: 'books', books }, options)} />
}
