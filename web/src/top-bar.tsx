import type { View } from './routing/view-state.js'
import { VIEW_TITLES } from './routing/routes.js'
import type { Session } from './session/session.js'
import { strings } from './strings/index.js'
import type { FeedState } from './live/change-feed.js'

/** Props of {@link TopBar}. */
export interface TopBarProps {
  session: Session
  /** The views in the navigation, and the one shown (`aria-current`). */
  views: readonly View[]
  current: View
  feedState: FeedState
  onChangePassword: () => void
  onSignOut: () => void
}

/**
 * The signed-in page's header: the navigation, the API document (`/docs`), the live feed's
 * state, who is signed in, "Change password" (accounts with a username) and "Sign out".
 */
export function TopBar({ session, views, current, feedState, onChangePassword, onSignOut }: TopBarProps) {
  return (
    <header class="top">
      <p class="app-name">{strings.appName}</p>
      <nav aria-label={strings.nav.label}>
        <ul>
          {views.map((view) => (
            <li key={view}>
              <a href={`#/${view}`} aria-current={current === view ? 'page' : undefined}>
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
        <span class={`live live-${feedState}`}>{liveText(feedState)}</span>
        <span class="who">{strings.session.signedInAs(session.username || '—', session.role ?? strings.session.roleFull)}</span>
        {session.username && (
          <button type="button" onClick={onChangePassword}>
            {strings.ownPassword.open}
          </button>
        )}
        <button type="button" onClick={onSignOut}>
          {strings.session.signOut}
        </button>
      </div>
    </header>
  )
}

/** What the header says of the live feed's state. */
function liveText(state: FeedState): string {
  if (state === 'live') return strings.live.on
  if (state === 'connecting') return strings.live.connecting
  if (state === 'reconnecting') return strings.live.reconnecting
  return strings.live.off
}
