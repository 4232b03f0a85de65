import Type, { type Static } from 'typebox'
import { publishedAs } from '../book/parameter-types.js'

/*
 * The schemas of the /webhooks routes (docs/contract.md "Webhooks"; docs/webhooks.md): validation,
 * serialization and the API document from one source.
 */

const Operation = Type.Union([Type.Literal('created'), Type.Literal('updated'), Type.Literal('deleted')])
const Events = Type.Array(Operation, {
  minItems: 1, maxItems: 3, uniqueItems: true, description: 'The changes sent: any of `created`, `updated`, `deleted`.'
})
const Url = Type.String({ minLength: 1, maxLength: 2048, description: 'Where deliveries are POSTed: an absolute http(s) URL.' })
const Description = Type.String({ maxLength: 1000, description: 'Free text for the admins.' })

/** One webhook endpoint as answered (never its secret, but in the answer that created it). */
export const Webhook = Type.Object(
  {
    id: Type.String({ description: 'Assigned by the service.' }),
    url: Type.String(),
    events: Type.Array(Operation),
    description: Type.Union([Type.String(), Type.Null()]),
    enabled: Type.Boolean(),
    disabled_reason: Type.Union([Type.String(), Type.Null()], { description: 'Why the endpoint was disabled (410, the retry schedule run out, an admin).' }),
    created_at: Type.String({ format: 'date-time', description: 'ISO 8601 UTC.' })
  },
  { additionalProperties: false }
)
export type Webhook = Static<typeof Webhook>

/** The answer to POST /webhooks: the endpoint and its secret, shown this once. */
export const CreatedWebhook = Type.Object(
  { ...Webhook.properties, secret: Type.String({ description: 'The signing secret (`whsec_…`): shown only in this answer.' }) },
  { additionalProperties: false }
)
export type CreatedWebhook = Static<typeof CreatedWebhook>

/** Body of POST /webhooks. */
export const WebhookInput = Type.Object(
  { url: Url, events: Type.Optional(Events), description: Type.Optional(Description) },
  { additionalProperties: true, examples: [{ url: 'https://shop.example.com/hooks/books', events: ['created', 'updated', 'deleted'] }] }
)
export type WebhookInput = Static<typeof WebhookInput>

/** Body of PUT /webhooks/{id}: each field optional; `enabled: true` clears `disabled_reason`. */
export const WebhookPatch = Type.Object(
  { url: Type.Optional(Url), events: Type.Optional(Events), description: Type.Optional(Description), enabled: Type.Optional(Type.Boolean()) },
  { additionalProperties: true, examples: [{ enabled: true }] }
)
export type WebhookPatch = Static<typeof WebhookPatch>

/** Path parameters of the /webhooks/{id} routes. */
export const WebhookParams = Type.Object({ id: Type.String({ description: 'The endpoint\'s id.' }) })

/** Body of POST /webhooks/{id}/replay. */
export const ReplayInput = Type.Object(
  { after: Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description: 'Every change after this change-log number (exclusive) is sent again.' }) },
  { additionalProperties: true, examples: [{ after: 0 }] }
)

/** Body of POST /webhooks/{id}/rotate. */
export const RotateInput = Type.Object(
  {
    overlap: Type.Optional(
      Type.Integer({ minimum: 0, maximum: 604_800, description: 'Seconds the old secret keeps signing beside the new one (default 86400).' })
    )
  },
  { additionalProperties: true, examples: [{ overlap: 86400 }] }
)

/** The answer to POST /webhooks/{id}/rotate: the new secret, shown this once. */
export const RotatedSecret = Type.Object(
  {
    id: Type.String(),
    secret: Type.String({ description: 'The new signing secret (`whsec_…`): shown only in this answer.' }),
    previous_secret_expires_at: Type.String({ format: 'date-time', description: 'ISO 8601 UTC: until then deliveries carry both signatures.' })
  },
  { additionalProperties: false }
)
export type RotatedSecret = Static<typeof RotatedSecret>

/** One delivery as answered. */
export const Delivery = Type.Object(
  {
    id: Type.Integer(),
    seq: Type.Integer({ description: 'The change-log number of the change.' }),
    event: Type.String({ description: 'The body\'s `type`: `book.created`, `book.updated` or `book.deleted`.' }),
    attempt: Type.Integer({ description: 'Attempts so far, from 1.' }),
    status: Type.Union([Type.Literal('pending'), Type.Literal('succeeded'), Type.Literal('failed')]),
    http_status: Type.Union([Type.Integer(), Type.Null()], { description: 'The last answer\'s status; null when none came.' }),
    error: Type.Union([Type.String(), Type.Null()], { description: 'Why the last attempt failed.' }),
    at: Type.String({ format: 'date-time', description: 'When the last attempt ended, ISO 8601 UTC.' }),
    next_attempt_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'When the next attempt is due (pending only), ISO 8601 UTC.' })
  },
  { additionalProperties: false }
)

export type Delivery = Static<typeof Delivery>

/** A delivery log's cursor: the `seq` and `id` of the last delivery of a page, as `<seq>.<id>`. */
const DELIVERY_CURSOR_PATTERN = '^[1-9][0-9]{0,15}\\.[1-9][0-9]{0,15}$'

/** The cursor of the page after the delivery at `position` (see {@link DeliveriesQuery}). */
export function deliveryCursor(position: { seq: number; id: number }): string {
  return `${position.seq}.${position.id}`
}

/** The position a cursor of {@link deliveryCursor} names (the pattern was checked already). */
export function deliveryPosition(cursor: string): { seq: number; id: number } {
  const [seq, id] = cursor.split('.').map(Number)
  return { seq: seq!, id: id! }
}

/** Query of GET /webhooks/{id}/deliveries. */
export const DeliveriesQuery = Type.Object({
  limit: publishedAs(Type.Optional(Type.String({ pattern: '^([1-9][0-9]{0,2}|1000)$', description: 'Page size, 1 to 1000 (default 100).' })), {
    type: 'integer', minimum: 1, maximum: 1000
  }),
  cursor: Type.Optional(Type.String({ pattern: DELIVERY_CURSOR_PATTERN, description: 'The cursor the `Link` header gives for the next page (the last delivery\'s `seq` and `id`).' })),
  status: Type.Optional(Type.Union([Type.Literal('pending'), Type.Literal('succeeded'), Type.Literal('failed')]))
})
