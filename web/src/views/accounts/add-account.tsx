import { useState } from 'preact/hooks'
import type { Account, Role } from '../../../../src/client/index.js'
import { validPassword, validUsername } from '../../accounts/rules.js'
import { strings } from '../../strings/index.js'
import { useUi } from '../../app-context.js'
import { Field } from '../../ui/field.js'
import { FormError } from '../../ui/form-error.js'
import { useSubmit } from '../../ui/use-submit.js'
import { accountErrorMessage } from './account-error.js'
import { NewPasswordField } from './new-password-field.js'
import { RoleSelect } from './role-select.js'

/** The form that adds an account (`POST /users`), checked with the account schema's rules first. */
export function AddAccount({ onAdded }: { onAdded: (account: Account) => void }) {
  const { client } = useUi()
  const [username, setUsername] = useState('')
  const [password, setPassword] = useState('')
  const [role, setRole] = useState<Role>('reader')
  const [submitted, setSubmitted] = useState(false)
  const submission = useSubmit()
  const usernameError = (submitted || username !== '') && !validUsername(username) ? strings.accounts.usernameInvalid : undefined

  async function submit(event: Event) {
    event.preventDefault()
    setSubmitted(true)
    if (!validUsername(username) || !validPassword(password)) return
    await submission.run(async () => {
      const account = await client.createUser({ username, password, role })
      setUsername('')
      setPassword('')
      setSubmitted(false)
      onAdded(account)
    }, accountErrorMessage)
  }

  return (
    <form class="card add-account" noValidate onSubmit={submit} aria-labelledby="add-account-title">
      <h2 id="add-account-title">{strings.accounts.add}</h2>
      <Field label={strings.accounts.username} name="new-username" autoComplete="off" hint={strings.accounts.usernameRule} value={username} error={usernameError} onInput={setUsername} />
      <NewPasswordField label={strings.accounts.password} name="new-password" value={password} onInput={setPassword} submitted={submitted} />
      <RoleSelect value={role} onChange={setRole} />
      <FormError message={submission.message} />
      <button type="submit" class="primary" disabled={submission.busy}>
        {submission.busy ? strings.saving : strings.accounts.add}
      </button>
    </form>
  )
}
