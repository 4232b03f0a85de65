import { useEffect, useRef, useState } from 'preact/hooks'
import { login } from '../api/client.js'
import { BookServiceError } from '../../../src/client/index.js'
import { strings } from '../strings/index.js'
import { Field } from '../ui/field.js'
import { FormError } from '../ui/form-error.js'
import { useSubmit } from '../ui/use-submit.js'

/** Props of {@link SignIn}. */
export interface SignInProps {
  /** Why the person is here (their session expired, they signed out), shown above the form. */
  notice?: string
  onSignedIn: (token: string) => void
}

/** The sign-in form: `POST /login` with a username and password. */
export function SignIn({ notice, onSignedIn }: SignInProps) {
  const [username, setUsername] = useState('')
  const [password, setPassword] = useState('')
  const submission = useSubmit()
  const heading = useRef<HTMLHeadingElement>(null)
  useEffect(() => heading.current?.focus(), [])

  async function submit(event: Event) {
    event.preventDefault()
    if (!username || !password) {
      submission.setMessage(strings.signIn.missing)
      return
    }
    await submission.run(
      async () => onSignedIn(await login(username, password)),
      (failure) => {
        // Here a 401 is a wrong username or password, not a session ending.
        if (failure instanceof BookServiceError && failure.status === 401) return strings.signIn.invalid
        if (failure instanceof BookServiceError && failure.status === 429) return strings.signIn.tooMany
        return undefined
      }
    )
  }

  return (
    <main id="main" class="sign-in">
      <h1 tabIndex={-1} ref={heading}>
        {strings.appName}
      </h1>
      <form class="card" onSubmit={submit} noValidate aria-labelledby="sign-in-title">
        <h2 id="sign-in-title">{strings.signIn.title}</h2>
        {notice && (
          <p class="notice" role="status">
            {notice}
          </p>
        )}
        <p class="muted">{strings.signIn.intro}</p>
        <Field label={strings.signIn.username} name="username" autoComplete="username" value={username} onInput={setUsername} />
        <Field label={strings.signIn.password} name="password" type="password" autoComplete="current-password" value={password} onInput={setPassword} />
        <FormError message={submission.message} />
        <button type="submit" class="primary" disabled={submission.busy}>
          {submission.busy ? strings.signIn.submitting : strings.signIn.submit}
        </button>
      </form>
    </main>
  )
}
