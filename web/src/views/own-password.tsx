import { useState } from 'preact/hooks'
import { validPassword } from '../accounts/rules.js'
import { BookServiceError, WRONG_CURRENT_PASSWORD } from '../../../src/client/index.js'
import { login } from '../api/client.js'
import { strings } from '../strings/index.js'
import { useUi } from '../app-context.js'
import { Field } from '../ui/field.js'
import { FormButtons } from '../ui/form-buttons.js'
import { FormError } from '../ui/form-error.js'
import { Modal } from '../ui/modal.js'
import { useSubmit } from '../ui/use-submit.js'
import { NewPasswordField } from './accounts/new-password-field.js'

/** Props of {@link OwnPassword}. */
export interface OwnPasswordProps {
  onClose: () => void
  /** The password was changed and the person signed in again with it: the new session's token. */
  onChanged: (token: string) => void
}

/**
 * "Change password", for any role (docs/web-page.md "Web page"): the current password and the new one,
 * sent to `PUT /users/{username}/password`. The change ends the account's sessions, this one
 * included, so the page signs in again with the new password and the person stays signed in.
 */
export function OwnPassword({ onClose, onChanged }: OwnPasswordProps) {
  const { client, endSession, session } = useUi()
  const [current, setCurrent] = useState('')
  const [next, setNext] = useState('')
  const [submitted, setSubmitted] = useState(false)
  const [currentError, setCurrentError] = useState<string>()
  const submission = useSubmit()

  async function submit(event: Event) {
    event.preventDefault()
    setSubmitted(true)
    submission.setMessage(undefined)
    setCurrentError(current === '' ? strings.ownPassword.currentMissing : undefined)
    if (current === '' || !validPassword(next)) return
    await submission.run(
      async () => {
        await client.changeOwnPassword(session.username, current, next)
        try {
          onChanged(await login(session.username, next))
        } catch {
          // Changed, but signing in again failed (a login limit): the old session is revoked anyway.
          endSession()
        }
      },
      (error) => {
        if (!(error instanceof BookServiceError)) return undefined
        if (error.status === 401 && error.message === WRONG_CURRENT_PASSWORD) setCurrentError(strings.ownPassword.wrongCurrent)
        if (error.status === 429) return strings.signIn.tooMany
        if (error.status === 400) return strings.accounts.invalid
        return undefined
      }
    )
  }

  return (
    <Modal title={strings.ownPassword.title} onClose={onClose}>
      <form class="own-password" noValidate onSubmit={(event) => void submit(event)}>
        <p class="muted">{strings.ownPassword.intro}</p>
        {/* For password managers: the account whose password this is. */}
        <input type="text" name="username" autoComplete="username" value={session.username} readOnly hidden />
        <Field
          label={strings.ownPassword.current}
          name="current-password"
          type="password"
          autoComplete="current-password"
          value={current}
          error={currentError}
          onInput={(value) => {
            setCurrent(value)
            setCurrentError(undefined)
          }}
        />
        <NewPasswordField label={strings.accounts.newPassword} name="new-password" value={next} onInput={setNext} submitted={submitted} />
        <FormError message={submission.message} />
        <FormButtons busy={submission.busy} label={strings.ownPassword.submit} onCancel={onClose} />
      </form>
    </Modal>
  )
}
