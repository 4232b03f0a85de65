import type { ChangeOperation } from './change-log.js'

/**
 * One webhook endpoint as stored (migration `0010_webhooks`; docs/webhooks.md). `seq` is the
 * sequence number of the last change it is done with (sent, given up or not subscribed; the
 * column `position`); `revision` moves on every change an admin makes (the dispatcher then reads
 * the endpoint again); `replays` moves on a replay only, so the dispatcher never writes a stale
 * `seq` over a replay, and an edit or a rotation keeps the `seq` it reached (docs/webhooks.md
 * "Managing endpoints", Replay).
 */
export interface WebhookEndpoint {
  readonly id: string
  readonly url: string
  readonly events: readonly ChangeOperation[]
  readonly description: string | null
  readonly enabled: boolean
  readonly disabledReason: string | null
  /** The signing secret (`whsec_…`); never answered after creation. */
  readonly secret: string
  /** The secret before the last rotation, which keeps signing until {@link previousSecretUntil}. */
  readonly previousSecret: string | null
  /** ms since the epoch. */
  readonly previousSecretUntil: number | null
  /** ISO 8601 UTC. */
  readonly createdAt: string
  readonly seq: number
  readonly revision: number
  readonly replays: number
}

/** A new endpoint: its revision and replays start at 1 and 0. */
export type NewEndpoint = Omit<WebhookEndpoint, 'revision' | 'replays'>

/** The `seq` the dispatcher reached for an endpoint, written only while no replay came since `replays`. */
export interface EndpointSeq {
  readonly id: string
  /** The endpoint's `replays` when the loop that reached `seq` started. */
  readonly replays: number
  readonly seq: number
}

/** The fields of an endpoint an admin (or the dispatcher, disabling it) may change. */
export type EndpointChange = Partial<
  Pick<WebhookEndpoint, 'url' | 'events' | 'description' | 'enabled' | 'disabledReason' | 'secret' | 'previousSecret' | 'previousSecretUntil' | 'seq'>
>

/** What happened to one delivery (one event to one endpoint). */
export type DeliveryStatus = 'pending' | 'succeeded' | 'failed'

/** One delivery as stored: its attempts so far and the outcome of the last one. */
export interface DeliveryRecord {
  readonly id: number
  readonly endpointId: string
  readonly seq: number
  /** The body's `type`: `book.created`, `book.updated` or `book.deleted`. */
  readonly event: string
  /** The `webhook-id` header of every attempt (the same after a crash or a replay). */
  readonly webhookId: string
  readonly attempt: number
  readonly status: DeliveryStatus
  readonly httpStatus: number | null
  readonly error: string | null
  /** When the last attempt ended, ms since the epoch. */
  readonly at: number
  /** When the next attempt is due (ms since the epoch), for a pending delivery. */
  readonly nextAttemptAt: number | null
}

/** The outcome of one attempt, written over the delivery's row (or a new row). */
export type DeliveryOutcome = Omit<DeliveryRecord, 'id'> & { readonly id?: number }

/** A delivery's place in a delivery log: its change's `seq`, then its row's `id`. */
export interface DeliveryPosition {
  seq: number
  id: number
}

/**
 * Webhook endpoints, their deliveries and the dispatcher's lease, in the books' database (both
 * engines, one set of statements): every process and instance on the database sees the same.
 * Methods reject with `StorageUnavailableError` when the storage cannot be reached.
 */
export interface WebhookStore {
  create(endpoint: NewEndpoint): Promise<void>
  list(): Promise<WebhookEndpoint[]>
  get(id: string): Promise<WebhookEndpoint | undefined>
  /** Applies `change` and moves the revision; undefined when no endpoint has this id. */
  update(id: string, change: EndpointChange): Promise<WebhookEndpoint | undefined>
  /**
   * Moves the endpoint's `seq` back (or on) to `after`, so every change after it is sent again;
   * pending deliveries after it are closed as failed (the replay sends them again, in order).
   *
   * @returns false when no endpoint has this id.
   */
  replay(id: string, after: number, now: number): Promise<boolean>
  /** Removes the endpoint and its delivery log; false when no endpoint has this id. */
  delete(id: string): Promise<boolean>
  /**
   * The endpoint's deliveries, newest first by change (`seq` descending, then the latest row
   * first: `id` descending), after the delivery `before` in that order when given
   * (docs/webhooks.md "Delivery log"); read through an index a page at a time.
   */
  deliveries(endpointId: string, options: { before?: DeliveryPosition; limit: number; status?: DeliveryStatus }): Promise<DeliveryRecord[]>
  /**
   * Removes up to `limit` finished deliveries (succeeded or failed; never a pending one) whose last
   * attempt was before `before` (ms since the epoch), the oldest first: one short statement.
   *
   * @returns how many were removed.
   */
  trim(before: number, limit: number): Promise<number>
  /** The pending delivery of a change after `seq`, if an attempt of it failed and another is due. */
  pending(endpointId: string, seq: number): Promise<DeliveryRecord | undefined>
  /**
   * Records the attempts' outcomes and the endpoints' new `seq`s in one transaction; a `seq` is
   * written only while no replay moved the endpoint since (its `replays` is still the one
   * given), and only forward.
   *
   * @returns the ids of the delivery rows, in the order of `outcomes`.
   */
  record(outcomes: readonly DeliveryOutcome[], seqs: readonly EndpointSeq[]): Promise<number[]>
  /** Disables the endpoint with `reason` unless an admin changed it since `revision`. */
  disable(id: string, revision: number, reason: string): Promise<void>
  /**
   * Takes or renews the dispatcher's lease for `holder` until `now + ttlMs` (ms): true when this
   * holder has it (it had it, or the previous holder's expired).
   */
  takeLease(holder: string, now: number, ttlMs: number): Promise<boolean>
  /** Gives the lease up (stopping): another process may take it at once. */
  releaseLease(holder: string): Promise<void>
}
