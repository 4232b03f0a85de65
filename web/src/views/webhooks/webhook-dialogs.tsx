import type { Webhook } from '../../../../src/client/index.js'
import { useUi } from '../../app-context.js'
import { strings } from '../../strings/index.js'
import { ConfirmDialog } from '../../ui/confirm-dialog.js'
import { Dialog } from '../../ui/dialog.js'
import { WebhookForm } from './webhook-form.js'

/** What an admin does to one endpoint in a dialog. */
export type WebhookAction = { kind: 'edit' | 'rotate' | 'delete'; webhook: Webhook }

/** Props of {@link WebhookDialog}. */
export interface WebhookDialogProps {
  action: WebhookAction
  others: readonly Webhook[]
  onClose: () => void
  /** Done: what to announce, and the new secret after a rotation (with when the old one stops). */
  onDone: (text: string, rotated?: { secret: string; until: string }) => void
}

/**
 * The dialog of one change to an endpoint: its URL, events and description (`PUT /webhooks/{id}`),
 * a new signing secret (`POST /webhooks/{id}/rotate`, the old one signing beside it for 24 hours),
 * or its deletion with its delivery log (`DELETE /webhooks/{id}`), each confirmed first.
 */
export function WebhookDialog({ action, others, onClose, onDone }: WebhookDialogProps) {
  const { client } = useUi()
  const { webhook, kind } = action
  const labels = strings.webhooks
  if (kind === 'edit') {
    return (
      <Dialog title={labels.editOf(webhook.url)} onClose={onClose}>
        <WebhookForm
          webhook={webhook}
          others={others}
          submitLabel={strings.save}
          onSubmit={async (input) => onDone(labels.saved((await client.updateWebhook(webhook.id, input)).url))}
        />
      </Dialog>
    )
  }
  if (kind === 'rotate') {
    return (
      <ConfirmDialog
        title={labels.rotateOf(webhook.url)}
        confirmLabel={labels.rotate}
        onClose={onClose}
        onConfirm={async () => {
          const rotated = await client.rotateWebhookSecret(webhook.id)
          onDone(labels.rotated(webhook.url), { secret: rotated.secret, until: rotated.previous_secret_expires_at })
        }}
      >
        <p>{labels.confirmRotate}</p>
      </ConfirmDialog>
    )
  }
  return (
    <ConfirmDialog
      title={labels.removeOf(webhook.url)}
      confirmLabel={labels.remove}
      danger
      onClose={onClose}
      onConfirm={async () => {
        await client.deleteWebhook(webhook.id)
        onDone(labels.removed(webhook.url))
      }}
    >
      <p>{labels.confirmRemove(webhook.url)}</p>
    </ConfirmDialog>
  )
}
