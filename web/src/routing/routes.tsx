import type { ComponentType } from 'preact'
import { useEffect, useState } from 'preact/hooks'
import type { Session } from '../session/session.js'
import { strings } from '../strings/index.js'
import { AccountsView } from '../views/accounts/accounts-view.js'
import { ApiTokensView } from '../views/api-tokens/api-tokens-view.js'
import { BooksView } from '../views/books/books-view.js'
import { WebhooksView } from '../views/webhooks/webhooks-view.js'
import type { Route, View } from './view-state.js'

/** The title of each view (the heading, the document's title, the navigation). */
export const VIEW_TITLES: Record<View, string> = {
  books: strings.nav.books,
  accounts: strings.nav.accounts,
  transfer: strings.nav.transfer,
  webhooks: strings.nav.webhooks,
  tokens: strings.nav.tokens
}

/** The views `session`'s rights open, in the navigation's order. */
export function viewsOf(session: Session): View[] {
  const { admin, write, read } = session.rights
  return ['books', ...(admin ? ['accounts' as const] : []), ...(write ? ['transfer' as const] : []), ...(admin ? ['webhooks' as const] : []), ...(read ? ['tokens' as const] : [])]
}

/** Props of {@link CurrentView}. */
export interface CurrentViewProps {
  route: Route
  navigate: (route: Route, options?: { replace?: boolean }) => void
  /** Whether the person's rights open the route's view; else the view says so. */
  allowed: boolean
}

/** The view the route names; import and export are loaded on first use (they bring the CSV parser). */
export function CurrentView({ route, navigate, allowed }: CurrentViewProps) {
  const [Transfer, setTransfer] = useState<ComponentType>()
  useEffect(() => {
    if (route.view === 'transfer' && allowed && !Transfer) {
      void import('../views/transfer/transfer-view.js').then((module) => setTransfer(() => module.TransferView))
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
