import { passwordLength, validPassword } from '../../accounts/rules.js'
import { strings } from '../../strings/index.js'
import { Field } from '../../ui/field.js'

/** Props of {@link NewPasswordField}. */
export interface NewPasswordFieldProps {
  label: string
  /** The input's `name` (distinct per form, so a password manager tells them apart). */
  name: string
  value: string
  onInput: (value: string) => void
  /** True once the form was submitted: an empty password is then an error too. */
  submitted: boolean
}

/**
 * A new account password (adding an account, resetting a password): its rule as the hint, and the
 * rule's message beside it as soon as what is typed breaks it (the account schema's lengths).
 */
export function NewPasswordField({ label, name, value, onInput, submitted }: NewPasswordFieldProps) {
  const { minimum, maximum } = passwordLength
  const error = (submitted || value !== '') && !validPassword(value) ? strings.accounts.passwordLength(minimum, maximum) : undefined
  return (
    <Field
      label={label}
      name={name}
      type="password"
      autoComplete="new-password"
      hint={strings.accounts.passwordRule(minimum, maximum)}
      value={value}
      error={error}
      onInput={onInput}
    />
  )
}
