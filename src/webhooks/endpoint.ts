import { randomUUID } from 'node:crypto'
import type { ChangeOperation } from '../storage/contracts/change-log.js'
import type { NewEndpoint } from '../storage/contracts/webhook-store.js'
import type { Webhook } from './schema.js'
import { newSecret } from './signature.js'

/** Every change operation: what an endpoint created without `events` subscribes to. */
export const ALL_OPERATIONS: readonly ChangeOperation[] = ['created', 'updated', 'deleted']

/**
 * A new endpoint (POST /webhooks, `book-service webhooks add`): a new id and secret, enabled, at
 * the change log's head `lastSeq`, so it receives the changes committed after its creation.
 */
export function newEndpoint(
  input: { url: string; events?: readonly ChangeOperation[]; description?: string },
  lastSeq: number
): NewEndpoint {
  return {
    id: randomUUID(), url: input.url, events: [...(input.events ?? ALL_OPERATIONS)], description: input.description ?? null, enabled: true,
    disabledReason: null, secret: newSecret(), previousSecret: null, previousSecretUntil: null, createdAt: new Date().toISOString(), seq: lastSeq
  }
}

/** An endpoint as the API answers it (docs/contract.md "Webhooks"): never its secret. */
export function webhookView(endpoint: NewEndpoint): Webhook {
  return {
    id: endpoint.id, url: endpoint.url, events: [...endpoint.events], description: endpoint.description, enabled: endpoint.enabled,
    disabled_reason: endpoint.enabled ? null : endpoint.disabledReason, created_at: endpoint.createdAt
  }
}
