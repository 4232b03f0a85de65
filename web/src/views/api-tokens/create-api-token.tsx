import { useState } from 'preact/hooks'
import { ApiTokenInput, TOKEN_DAYS, TOKEN_NAME_LENGTH } from '../../../../src/account/api-token-schema.js'
import type { CreatedApiToken, Role } from '../../../../src/client/index.js'
import { useUi } from '../../app-context.js'
import { ROLE_NAMES } from '../../session/session.js'
import { strings } from '../../strings/index.js'
import { Field } from '../../ui/field.js'
import { FormError } from '../../ui/form-error.js'
import { useSubmit } from '../../ui/use-submit.js'
import { RoleSelect } from '../accounts/role-select.js'

/** What the API token schema refuses in a name (control characters, lone surrogates): its own pattern, read as Ajv reads it (`u`). */
const NAME_REFUSED = new RegExp((ApiTokenInput.properties.name as unknown as { not: { pattern: string } }).not.pattern, 'u')

/** Whether `name` is one the service takes (docs/api-tokens.md "The routes"). */
function validName(name: string): boolean {
  const length = [...name].length
  return length >= TOKEN_NAME_LENGTH.min && length <= TOKEN_NAME_LENGTH.max && !NAME_REFUSED.test(name)
}

/** Whether `days` is empty (never expires) or a whole number of days the service takes. */
function validDays(days: string): boolean {
  if (days.trim() === '') return true
  return /^\d{1,4}$/.test(days.trim()) && Number(days) >= TOKEN_DAYS.min && Number(days) <= TOKEN_DAYS.max
}

/**
 * The form that makes an API token (`POST /tokens`): its name, its role (at most the signed-in
 * person's: the service refuses more with 403) and the days it lives. The new token goes to
 * `onCreated`, which shows it once.
 */
export function CreateApiToken({ onCreated }: { onCreated: (created: CreatedApiToken) => void }) {
  const { client, session } = useUi()
  const roles = session.role ? ROLE_NAMES.slice(0, ROLE_NAMES.indexOf(session.role) + 1) : ROLE_NAMES
  const [name, setName] = useState('')
  const [role, setRole] = useState<Role>(roles[0]!)
  const [days, setDays] = useState('')
  const [submitted, setSubmitted] = useState(false)
  const { busy, message, run } = useSubmit()
  const labels = strings.apiTokens
  const nameError = (submitted || name !== '') && !validName(name) ? labels.nameInvalid(TOKEN_NAME_LENGTH.max) : undefined
  const daysError = !validDays(days) ? labels.daysInvalid(TOKEN_DAYS.min, TOKEN_DAYS.max) : undefined

  async function submit(event: Event) {
    event.preventDefault()
    setSubmitted(true)
    if (!validName(name) || !validDays(days)) return
    await run(async () => {
      const created = await client.createApiToken({ name, role, ...(days.trim() ? { expires_in_days: Number(days) } : {}) })
      setName('')
      setDays('')
      setSubmitted(false)
      onCreated(created)
    })
  }

  return (
    <form class="card create-api-token" noValidate onSubmit={submit} aria-labelledby="create-api-token-title">
      <h2 id="create-api-token-title">{labels.add}</h2>
      <Field label={labels.name} name="token-name" autoComplete="off" hint={labels.nameHint} value={name} error={nameError} onInput={setName} />
      <RoleSelect value={role} onChange={setRole} roles={roles} hint={labels.roleHint} />
      <Field label={labels.days} name="token-days" inputMode="numeric" autoComplete="off" hint={labels.daysHint(TOKEN_DAYS.min, TOKEN_DAYS.max)} value={days} error={daysError} onInput={setDays} />
      <FormError message={message} />
      <button type="submit" class="primary" disabled={busy}>
        {busy ? strings.saving : labels.add}
      </button>
    </form>
  )
}
