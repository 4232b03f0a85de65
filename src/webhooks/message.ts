import type { BookChange } from '../storage/contracts/change-log.js'

/** The event types of the body's `type` (docs/contract.md "Webhooks"), by change operation. */
export const EVENT_TYPES = { created: 'book.created', updated: 'book.updated', deleted: 'book.deleted' } as const

/**
 * Each change's body, by the change read: the endpoint loops share the change log's reads
 * (dispatcher.ts `SharedChangeReader`), so a change sent to ten endpoints is encoded once.
 */
const bodies = new WeakMap<BookChange, string>()

/**
 * The body of one delivery (docs/contract.md "Webhooks"): `{"type", "timestamp", "data": {"seq", "id",
 * "book"}}`, `timestamp` the change's commit time (RFC 3339), the same for every attempt.
 */
export function messageBody(change: BookChange): string {
  let body = bodies.get(change)
  if (body === undefined) {
    body = JSON.stringify({
      type: EVENT_TYPES[change.operation],
      timestamp: change.changedAt,
      data: { seq: change.seq, id: change.bookId, book: change.book }
    })
    bodies.set(change, body)
  }
  return body
}

/** The `webhook-id` of a change to an endpoint: the same for every attempt, after a crash and in a replay. */
export function webhookIdOf(endpointId: string, seq: number): string {
  return `msg_${endpointId}_${seq}`
}
