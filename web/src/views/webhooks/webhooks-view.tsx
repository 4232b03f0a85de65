import { useEffect, useReducer, useState } from 'preact/hooks'
import type { CreatedWebhook, Webhook } from '../../../../src/client/index.js'
import { strings } from '../../strings/index.js'
import { useUi } from '../../app-context.js'
import { errorMessage } from '../../ui/error-message.js'
import { Modal } from '../../ui/modal.js'
import { AddWebhook } from './add-webhook.js'
import { DeliveryLog } from './delivery-log.js'

/**
 * The webhook endpoints, for admins (`/webhooks`, docs/webhooks.md): the list with each one's
 * state (a disabled one with its reason), enabling and disabling, deleting, its delivery log with
 * the failures and replay; a form to add one, whose secret is shown once in a dialog.
 */
export function WebhooksView() {
  const { client, announce } = useUi()
  const [webhooks, setWebhooks] = useState<Webhook[]>()
  const [error, setError] = useState<string>()
  const [reloads, reload] = useReducer((count: number, _action: void) => count + 1, 0)
  const [secret, setSecret] = useState<CreatedWebhook>()
  const [logOf, setLogOf] = useState<Webhook>()
  const [rowError, setRowError] = useState<string>()

  useEffect(() => {
    let current = true
    client.listWebhooks().then(
      (list) => {
        if (!current) return
        setWebhooks(list)
        setError(undefined)
      },
      (failure: unknown) => current && setError(errorMessage(failure))
    )
    return () => {
      current = false
    }
  }, [reloads])

  async function run(work: () => Promise<void>) {
    setRowError(undefined)
    try {
      await work()
    } catch (failure) {
      setRowError(errorMessage(failure))
    }
    reload()
  }

  const toggle = (webhook: Webhook) =>
    run(async () => {
      await client.updateWebhook(webhook.id, { enabled: !webhook.enabled })
      announce(strings.webhooks.switched(webhook.url, !webhook.enabled))
    })
  const remove = (webhook: Webhook) =>
    run(async () => {
      if (!window.confirm(strings.webhooks.confirmRemove(webhook.url))) return
      await client.deleteWebhook(webhook.id)
      announce(strings.webhooks.removed(webhook.url))
    })

  return (
    <>
      <div class="view-head">
        <h1 tabIndex={-1}>{strings.webhooks.title}</h1>
      </div>
      <p class="muted">{strings.webhooks.help}</p>
      {error && (
        <div class="notice" role="alert">
          <p>
            {strings.webhooks.loadFailed} {error}
          </p>
          <button type="button" onClick={() => reload()}>
            {strings.books.retry}
          </button>
        </div>
      )}
      {rowError && (
        <p class="form-error" role="alert">
          {rowError}
        </p>
      )}
      {!webhooks && !error && <p aria-busy="true">{strings.loading}</p>}
      {webhooks && webhooks.length === 0 && <p>{strings.webhooks.none}</p>}
      {webhooks && webhooks.length > 0 && (
        <div class="table-wrap">
          <table class="webhooks">
            <caption class="visually-hidden">{strings.webhooks.caption}</caption>
            <thead>
              <tr>
                <th scope="col">{strings.webhooks.columns.url}</th>
                <th scope="col">{strings.webhooks.columns.events}</th>
                <th scope="col">{strings.webhooks.columns.state}</th>
                <th scope="col" class="actions">
                  {strings.webhooks.columns.actions}
                </th>
              </tr>
            </thead>
            <tbody>
              {webhooks.map((webhook) => (
                <tr key={webhook.id} data-webhook={webhook.id}>
                  <td data-label={strings.webhooks.columns.url} class="webhook-url">
                    {webhook.url}
                    {webhook.description && <span class="muted"> {webhook.description}</span>}
                  </td>
                  <td data-label={strings.webhooks.columns.events}>{webhook.events.map((event) => strings.webhooks.events[event]).join(', ')}</td>
                  <td data-label={strings.webhooks.columns.state}>
                    {webhook.enabled ? strings.webhooks.enabled : <span class="webhook-disabled">{strings.webhooks.disabled(webhook.disabled_reason)}</span>}
                  </td>
                  <td class="actions">
                    <button type="button" aria-label={strings.webhooks.deliveriesOf(webhook.url)} onClick={() => setLogOf(webhook)}>
                      {strings.webhooks.deliveries}
                    </button>
                    <button
                      type="button"
                      aria-label={webhook.enabled ? strings.webhooks.disableOf(webhook.url) : strings.webhooks.enableOf(webhook.url)}
                      onClick={() => void toggle(webhook)}
                    >
                      {webhook.enabled ? strings.webhooks.disable : strings.webhooks.enable}
                    </button>
                    <button type="button" class="danger" aria-label={strings.webhooks.removeOf(webhook.url)} onClick={() => void remove(webhook)}>
                      {strings.webhooks.remove}
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <AddWebhook
        onAdded={(created) => {
          announce(strings.webhooks.added(created.url))
          setSecret(created)
          reload()
        }}
      />
      {secret && (
        <Modal title={strings.webhooks.secretTitle} onClose={() => setSecret(undefined)}>
          <p>{strings.webhooks.secretHelp}</p>
          <p>
            <code class="webhook-secret" data-secret>
              {secret.secret}
            </code>
          </p>
          <button type="button" class="primary" onClick={() => setSecret(undefined)}>
            {strings.webhooks.secretDone}
          </button>
        </Modal>
      )}
      {logOf && <DeliveryLog webhook={logOf} onClose={() => setLogOf(undefined)} />}
    </>
  )
}
