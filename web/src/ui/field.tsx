import type { Ref } from 'preact'
import { useId } from 'preact/hooks'

/** Props of {@link Field}. */
export interface FieldProps {
  label: string
  value: string
  onInput: (value: string) => void
  onBlur?: () => void
  /** The message shown next to the field when its value breaks a rule. */
  error?: string
  /** A warning next to the field that does not stop the form (the service may refuse the value). */
  note?: string
  hint?: string
  type?: 'text' | 'password' | 'search'
  name?: string
  autoComplete?: string
  inputMode?: 'numeric' | 'text'
  inputRef?: Ref<HTMLInputElement>
}

/**
 * A labelled text input with its hint and its error next to it: the error is tied to the input
 * by `aria-describedby` and marks it `aria-invalid`, so a screen reader reads it with the field.
 */
export function Field({ label, value, onInput, onBlur, error, note, hint, type = 'text', name, autoComplete, inputMode, inputRef }: FieldProps) {
  const id = useId()
  const described = [hint ? `${id}-hint` : '', error ? `${id}-error` : '', note ? `${id}-note` : ''].filter(Boolean).join(' ')
  return (
    <div class="field">
      <label for={id}>{label}</label>
      {hint && (
        <p id={`${id}-hint`} class="hint">
          {hint}
        </p>
      )}
      <input
        id={id}
        ref={inputRef}
        name={name}
        // Preact's types tell input types apart; all three take the same attributes here.
        type={type as 'text'}
        value={value}
        autoComplete={autoComplete}
        inputMode={inputMode}
        spellcheck={false}
        aria-invalid={error ? 'true' : undefined}
        aria-describedby={described || undefined}
        onInput={(event) => onInput(event.currentTarget.value)}
        onBlur={onBlur}
      />
      {error && (
        <p id={`${id}-error`} class="field-error">
          {error}
        </p>
      )}
      {note && (
        <p id={`${id}-note`} class="field-note">
          {note}
        </p>
      )}
    </div>
  )
}
