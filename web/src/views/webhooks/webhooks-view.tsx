import { useState } from 'preact/hooks'
import type { Webhook } from '../../../../src/client/index.js'
import { useUi } from '../../app-context.js'
import { strings } from '../../strings/index.js'
import { DataTable } from '../../ui/data-table.js'
import { errorMessage } from '../../ui/error-message.js'
import { SecretDialog } from '../../ui/secret-dialog.js'
import { useLoad } from '../../ui/use-load.js'
import { AddWebhook } from './add-webhook.js'
import { DeliveryLog } from './delivery-log.js'
import { WEBHOOK_COLUMNS } from './webhook-columns.js'
import { WebhookDialog, type WebhookAction } from './webhook-dialogs.js'

const labels = strings.webhooks
const dateFormat = new Intl.DateTimeFormat(strings.locale, { dateStyle: 'medium', timeStyle: 'short' })

/**
 * The webhook endpoints, for admins (`/webhooks`, docs/webhooks.md): each with its state and how
 * its deliveries go (the newest one, and the lag when it has not gone through); its delivery log
 * with replay, edit, a new secret, enabling and disabling, deleting; a form to add one. A new
 * secret (added or rotated) is shown once, with a Copy button.
 */
export function WebhooksView() {
  const { client, announce } = useUi()
  const webhooks = useLoad(() => client.listWebhooks())
  const [secret, setSecret] = useState<{ title: string; help: string; secret: string }>()
  const [logOf, setLogOf] = useState<Webhook>()
  const [action, setAction] = useState<WebhookAction>()
  const [rowError, setRowError] = useState<string>()

  async function toggle(webhook: Webhook) {
    setRowError(undefined)
    try {
      await client.updateWebhook(webhook.id, { enabled: !webhook.enabled })
      announce(labels.switched(webhook.url, !webhook.enabled))
    } catch (failure) {
      setRowError(errorMessage(failure))
    }
    webhooks.reload()
  }

  const button = (text: string, label: string, onClick: () => void, danger = false) => (
    <button type="button" class={danger ? 'danger' : undefined} aria-label={label} onClick={onClick}>
      {text}
    </button>
  )
  return (
    <>
      <div class="view-head">
        <h1 tabIndex={-1}>{labels.title}</h1>
      </div>
      <p class="muted">{labels.help}</p>
      {rowError && (
        <p class="form-error" role="alert">
          {rowError}
        </p>
      )}
      <DataTable
        caption={labels.caption}
        class="webhooks"
        load={webhooks}
        loadFailed={labels.loadFailed}
        columns={WEBHOOK_COLUMNS}
        rowKey={(webhook) => webhook.id}
        rowAttributes={(webhook) => ({ 'data-webhook': webhook.id })}
        empty={labels.none}
        actions={(webhook) => (
          <>
            {button(labels.deliveries, labels.deliveriesOf(webhook.url), () => setLogOf(webhook))}
            {button(labels.edit, labels.editOf(webhook.url), () => setAction({ kind: 'edit', webhook }))}
            {button(labels.rotate, labels.rotateOf(webhook.url), () => setAction({ kind: 'rotate', webhook }))}
            {webhook.enabled
              ? button(labels.disable, labels.disableOf(webhook.url), () => void toggle(webhook))
              : button(labels.enable, labels.enableOf(webhook.url), () => void toggle(webhook))}
            {button(labels.remove, labels.removeOf(webhook.url), () => setAction({ kind: 'delete', webhook }), true)}
          </>
        )}
      />
      <AddWebhook
        others={webhooks.data ?? []}
        onAdded={(created) => {
          announce(labels.added(created.url))
          setSecret({ title: labels.secretTitle, help: labels.secretHelp, secret: created.secret })
          webhooks.reload()
        }}
      />
      {action && (
        <WebhookDialog
          action={action}
          others={webhooks.data ?? []}
          onClose={() => setAction(undefined)}
          onDone={(text, rotated) => {
            setAction(undefined)
            announce(text)
            if (rotated) setSecret({ title: labels.rotatedTitle, help: labels.rotatedHelp(dateFormat.format(new Date(rotated.until))), secret: rotated.secret })
            webhooks.reload()
          }}
        />
      )}
      {secret && <SecretDialog {...secret} copyLabel={labels.copySecret} onClose={() => setSecret(undefined)} />}
      {logOf && <DeliveryLog webhook={logOf} onClose={() => setLogOf(undefined)} />}
    </>
  )
}
