import { strings } from '../strings/index.js'
import { CopyButton } from './copy-button.js'
import { Dialog } from './dialog.js'

/** Props of {@link SecretDialog}. */
export interface SecretDialogProps {
  title: string
  /** Why it is shown once and what it is for. */
  help: string
  /** The secret or token, shown in full. */
  secret: string
  /** The Copy button's accessible name ("Copy the token"). */
  copyLabel: string
  onClose: () => void
}

/**
 * A secret shown once (a new API token, a webhook's signing secret): the text in full, a Copy
 * button, and "I have copied it" besides the header's Close. Nothing keeps it after the dialog closes.
 */
export function SecretDialog({ title, help, secret, copyLabel, onClose }: SecretDialogProps) {
  return (
    <Dialog
      title={title}
      onClose={onClose}
      footer={
        <button type="button" class="primary" onClick={onClose}>
          {strings.copiedDone}
        </button>
      }
    >
      <p>{help}</p>
      <p>
        <code class="secret-text" data-secret>
          {secret}
        </code>
      </p>
      <CopyButton text={secret} label={copyLabel} />
    </Dialog>
  )
}
