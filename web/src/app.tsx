import { useCallback, useEffect, useMemo, useState } from 'preact/hooks'
import { forgetToken, keepToken, sessionOf, storedSession } from './session/session.js'
import { SignedIn } from './signed-in.js'
import { strings } from './strings/index.js'
import { SignIn } from './views/sign-in.js'

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
