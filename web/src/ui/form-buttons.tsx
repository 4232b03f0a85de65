import { strings } from '../strings/index.js'

/** Props of {@link FormButtons}. */
export interface FormButtonsProps {
  /** A send runs: the submit button is disabled and says "Saving…". */
  busy: boolean
  /** The submit button's text otherwise. */
  label: string
  onCancel: () => void
}

/** A form's submit button and its Cancel, in a dialog whose form holds its own buttons. */
export function FormButtons({ busy, label, onCancel }: FormButtonsProps) {
  return (
    <div class="buttons">
      <button type="submit" class="primary" disabled={busy}>
        {busy ? strings.saving : label}
      </button>
      <button type="button" onClick={onCancel}>
        {strings.cancel}
      </button>
    </div>
  )
}
