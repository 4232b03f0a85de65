import { useId } from 'preact/hooks'
import type { Role } from '../../../../src/client/index.js'
import { ROLE_NAMES } from '../../session/session.js'
import { strings } from '../../strings/index.js'

/** Props of {@link RoleSelect}. */
export interface RoleSelectProps {
  value: Role
  onChange: (role: Role) => void
  /** The roles offered; default every role the account schema names. */
  roles?: readonly Role[]
  /** A line under the label, read with the choice. */
  hint?: string
}

/** The labelled choice of a role (an account's, an API token's). */
export function RoleSelect({ value, onChange, roles = ROLE_NAMES, hint }: RoleSelectProps) {
  const id = useId()
  return (
    <div class="field">
      <label for={id}>{strings.accounts.role}</label>
      {hint && (
        <p id={`${id}-hint`} class="hint">
          {hint}
        </p>
      )}
      <select id={id} value={value} aria-describedby={hint ? `${id}-hint` : undefined} onChange={(event) => onChange(event.currentTarget.value as Role)}>
        {roles.map((name) => (
          <option key={name} value={name}>
            {strings.accounts.roles[name]}
          </option>
        ))}
      </select>
    </div>
  )
}
