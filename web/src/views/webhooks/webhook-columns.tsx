import type { Webhook } from '../../../../src/client/index.js'
import { strings } from '../../strings/index.js'
import type { Column } from '../../ui/data-table.js'
import { DeliveryState } from './delivery-state.js'

const labels = strings.webhooks

/** The endpoints' columns: URL and description, events, state with how its deliveries go. */
export const WEBHOOK_COLUMNS: Column<Webhook>[] = [
  {
    header: labels.columns.url,
    class: 'webhook-url',
    cell: (webhook) => (
      <>
        {webhook.url}
        {webhook.description && <span class="muted"> {webhook.description}</span>}
      </>
    )
  },
  { header: labels.columns.events, cell: (webhook) => webhook.events.map((event) => labels.events[event]).join(', ') },
  {
    header: labels.columns.state,
    cell: (webhook) => (
      <>
        {webhook.enabled ? labels.enabled : <span class="webhook-disabled">{labels.disabled(webhook.disabled_reason)}</span>}
        <DeliveryState webhook={webhook} />
      </>
    )
  }
]
