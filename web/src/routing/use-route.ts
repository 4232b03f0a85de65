import { useCallback, useEffect, useState } from 'preact/hooks'
import { hashOf, parseHash, rememberedQuery, type Route } from './view-state.js'

/** The route of the current location; an empty hash opens the books with the remembered settings. */
function currentRoute(): Route {
  if (location.hash === '' || location.hash === '#' || location.hash === '#/') {
    const route: Route = { view: 'books', books: rememberedQuery() }
    history.replaceState(history.state, '', hashOf(route))
    return route
  }
  return parseHash(location.hash)
}

/**
 * The route in the location's hash, and `navigate`, which changes it: a new history entry (so
 * Back returns), or with `replace` the same entry (typing in a filter).
 */
export function useRoute(): [Route, (route: Route, options?: { replace?: boolean }) => void] {
  const [route, setRoute] = useState(currentRoute)
  useEffect(() => {
    const onChange = () => setRoute(currentRoute())
    addEventListener('hashchange', onChange)
    return () => removeEventListener('hashchange', onChange)
  }, [])
  const navigate = useCallback((next: Route, options: { replace?: boolean } = {}) => {
    const hash = hashOf(next)
    if (hash !== location.hash) {
      if (options.replace) history.replaceState(history.state, '', hash)
      else history.pushState(history.state, '', hash)
    }
    setRoute(parseHash(hash))
  }, [])
  return [route, navigate]
}
