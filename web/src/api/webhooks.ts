import type { CreatedWebhook, Delivery, Webhook, WebhookInput, WebhookPatch } from '../../../src/client/index.js'
import { call, type Caller } from './request.js'

export type { CreatedWebhook, Delivery, Webhook, WebhookInput, WebhookPatch }

const webhookPath = (id: string) => `/webhooks/${encodeURIComponent(id)}`

/** `GET /webhooks` (admin): every endpoint, never a secret (docs/webhooks.md). */
export async function listWebhooks(caller: Caller): Promise<Webhook[]> {
  return (await call<Webhook[]>(caller, 'GET', '/webhooks')).data
}

/** `POST /webhooks` (admin): the endpoint with its secret, shown only in this answer. */
export async function createWebhook(caller: Caller, input: WebhookInput): Promise<CreatedWebhook> {
  return (await call<CreatedWebhook>(caller, 'POST', '/webhooks', { body: input })).data
}

/** `PUT /webhooks/{id}` (admin). */
export async function updateWebhook(caller: Caller, id: string, patch: WebhookPatch): Promise<Webhook> {
  return (await call<Webhook>(caller, 'PUT', webhookPath(id), { body: patch })).data
}

/** `DELETE /webhooks/{id}` (admin). */
export async function deleteWebhook(caller: Caller, id: string): Promise<void> {
  await call<null>(caller, 'DELETE', webhookPath(id))
}

/** `GET /webhooks/{id}/deliveries` (admin): the newest `limit`, optionally of one status. */
export async function listDeliveries(caller: Caller, id: string, status?: Delivery['status'], limit = 50): Promise<Delivery[]> {
  const query = new URLSearchParams({ limit: String(limit), ...(status ? { status } : {}) })
  return (await call<Delivery[]>(caller, 'GET', `${webhookPath(id)}/deliveries?${query}`)).data
}

/** `POST /webhooks/{id}/replay` (admin): every change after `after` is sent again. */
export async function replayWebhook(caller: Caller, id: string, after: number): Promise<void> {
  await call<null>(caller, 'POST', `${webhookPath(id)}/replay`, { body: { after } })
}
