import { useId, useState } from 'preact/hooks'
import type { Account, Role } from '../../../../src/client/index.js'
import { validPassword } from '../../accounts/rules.js'
import { strings } from '../../strings/index.js'
import { useUi } from '../../app-context.js'
import { Dialog } from '../../ui/dialog.js'
import { FormError } from '../../ui/form-error.js'
import { useSubmit } from '../../ui/use-submit.js'
import { accountErrorMessage } from './account-error.js'
import { NewPasswordField } from './new-password-field.js'
import { RoleSelect } from './role-select.js'

/** What an admin does to one account. */
export type AccountAction = { kind: 'role' | 'password' | 'delete'; account: Account }

/** Props of {@link AccountDialog}. */
export interface AccountDialogProps {
  action: AccountAction
  onClose: () => void
  /** Done: what to announce. */
  onDone: (text: string) => void
}

/**
 * The dialog of one change to an account: its role or its password (`PUT /users/{username}`), or
 * its deletion (`DELETE /users/{username}`). A refusal (the last admin's 409, an account deleted
 * meanwhile) is shown in the dialog, which stays open.
 */
export function AccountDialog({ action, onClose, onDone }: AccountDialogProps) {
  const { client } = useUi()
  const { account, kind } = action
  const [role, setRole] = useState<Role>(account.role)
  const [password, setPassword] = useState('')
  const [submitted, setSubmitted] = useState(false)
  const { busy, message, run } = useSubmit()
  const formId = useId()

  async function submit(event: Event) {
    event.preventDefault()
    setSubmitted(true)
    if (kind === 'password' && !validPassword(password)) return
    await run(async () => {
      if (kind === 'delete') {
        await client.deleteUser(account.username)
        onDone(strings.accounts.deleted(account.username))
      } else if (kind === 'role') {
        const changed = await client.updateUser(account.username, { role })
        onDone(strings.accounts.roleChanged(changed.username, strings.accounts.roles[changed.role]))
      } else {
        await client.updateUser(account.username, { password })
        onDone(strings.accounts.passwordReset(account.username))
      }
    }, accountErrorMessage)
  }

  const title =
    kind === 'delete'
      ? strings.accounts.deleteOf(account.username)
      : kind === 'role'
        ? strings.accounts.changeRoleOf(account.username)
        : strings.accounts.resetPasswordOf(account.username)
  return (
    <Dialog
      title={title}
      onClose={onClose}
      footer={
        <>
          <button type="submit" form={formId} class={kind === 'delete' ? 'danger' : 'primary'} disabled={busy}>
            {busy ? strings.saving : kind === 'delete' ? strings.accounts.delete : strings.save}
          </button>
          <button type="button" onClick={onClose} disabled={busy}>
            {strings.cancel}
          </button>
        </>
      }
    >
      <form id={formId} noValidate onSubmit={submit}>
        {kind === 'delete' && <p>{strings.accounts.confirmDelete(account.username)}</p>}
        {kind === 'role' && <RoleSelect value={role} onChange={setRole} />}
        {kind === 'password' && (
          <NewPasswordField label={strings.accounts.newPassword} name="reset-password" value={password} onInput={setPassword} submitted={submitted} />
        )}
        <FormError message={message} />
      </form>
    </Dialog>
  )
}
