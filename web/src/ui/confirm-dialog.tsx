import type { ComponentChildren } from 'preact'
import { strings } from '../strings/index.js'
import { Dialog } from './dialog.js'
import { FormError } from './form-error.js'
import { useSubmit } from './use-submit.js'

/** Props of {@link ConfirmDialog}. */
export interface ConfirmDialogProps {
  title: string
  /** What the action does, said before it is done. */
  children: ComponentChildren
  /** The confirming button's text ("Revoke", "Delete"). */
  confirmLabel: string
  /** A destructive action: the button is red. */
  danger?: boolean
  /** Does the action; a rejection is shown in the dialog, which stays open (a 401 ends the session instead). */
  onConfirm: () => Promise<void>
  onClose: () => void
}

/**
 * A confirmation before an action (revoke a token, rotate a secret, delete an endpoint): the
 * text, the confirming button and Cancel in the footer. While the action runs both are disabled;
 * when it fails, its message is shown and the person may try again or cancel.
 */
export function ConfirmDialog({ title, children, confirmLabel, danger, onConfirm, onClose }: ConfirmDialogProps) {
  const { busy, message, run } = useSubmit()

  return (
    <Dialog
      title={title}
      onClose={onClose}
      footer={
        <>
          <button type="button" class={danger ? 'danger' : 'primary'} disabled={busy} onClick={() => void run(onConfirm)}>
            {busy ? strings.saving : confirmLabel}
          </button>
          <button type="button" onClick={onClose} disabled={busy}>
            {strings.cancel}
          </button>
        </>
      }
    >
      {children}
      <FormError message={message} />
    </Dialog>
  )
}
