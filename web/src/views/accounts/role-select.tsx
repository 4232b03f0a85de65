import { useId } from 'preact/hooks'
import type { Role } from '../../../../src/client/index.js'
import { ROLE_NAMES } from '../../session/session.js'
import { strings } from '../../strings/index.js'

/** The labelled choice of a role, among those the account schema names. */
export function RoleSelect({ value, onChange }: { value: Role; onChange: (role: Role) => void }) {
  const id = useId()
  return (
    <div class="field">
      <label for={id}>{strings.accounts.role}</label>
      <select id={id} value={value} onChange={(event) => onChange(event.currentTarget.value as Role)}>
        {ROLE_NAMES.map((name) => (
          <option key={name} value={name}>
            {strings.accounts.roles[name]}
          </option>
        ))}
      </select>
    </div>
  )
}
