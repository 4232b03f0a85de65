import type { CreatedWebhook, Webhook } from '../../../../src/client/index.js'
import { useUi } from '../../app-context.js'
import { strings } from '../../strings/index.js'
import { WebhookForm } from './webhook-form.js'

/** The card that adds an endpoint (`POST /webhooks`); the new endpoint, with its secret, goes to `onAdded`. */
export function AddWebhook({ others, onAdded }: { others: readonly Webhook[]; onAdded: (created: CreatedWebhook) => void }) {
  const { client } = useUi()
  return (
    <section class="card add-webhook" aria-labelledby="add-webhook-title">
      <h2 id="add-webhook-title">{strings.webhooks.add}</h2>
      <WebhookForm
        others={others}
        submitLabel={strings.webhooks.add}
        onSubmit={async ({ url, events, description }) => onAdded(await client.createWebhook({ url, events, ...(description ? { description } : {}) }))}
      />
    </section>
  )
}
