import type { FastifyBaseLogger, FastifyInstance } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import Type from 'typebox'
import { guardEveryRoute, type AuthHook } from '../http/pipeline/auth-hook.js'
import { envelopeOf } from '../http/envelope.js'
import { assertValidBody } from '../http/pipeline/json-body.js'
import { HttpError } from '../http/errors/http-error.js'
import { Messages } from '../http/messages.js'
import { errorResponse, invalidInputResponse, successResponse, withHeaders } from '../http/api-document/response-schemas.js'
import type { ChangeLog } from '../storage/contracts/change-log.js'
import type { DeliveryRecord, WebhookEndpoint, WebhookStore } from '../storage/contracts/webhook-store.js'
import { urlRefusal } from '../webhooks/address-policy.js'
import { newSecret } from '../webhooks/signature.js'
import { newEndpoint, webhookView } from '../webhooks/endpoint.js'
import {
  CreatedWebhook, DeliveriesQuery, Delivery, deliveryCursor, deliveryPosition, ReplayInput, RotatedSecret, RotateInput, Webhook, WebhookInput, WebhookParams, WebhookPatch
} from '../webhooks/schema.js'

/** Options of the {@link webhooksRoutes} plugin. */
export interface WebhooksOptions {
  webhooks: WebhookStore
  changes: ChangeLog
  /** The `onRequest` hook that admits admins only (401, then 403). */
  authenticate: AuthHook
  /** `WEBHOOK_ALLOW_PRIVATE`. */
  allowPrivate: boolean
  /** Told of every change, so this process's dispatcher reads the endpoints again at once. */
  onChange: () => void
}

const tags = ['Webhooks']
const DEFAULT_OVERLAP_SECONDS = 86_400
const DEFAULT_PAGE = 100
const notFoundResponse = errorResponse(404, `\`${Messages.webhookNotFound}\`: no endpoint has this id.`, [Messages.webhookNotFound])

function deliveryView(delivery: DeliveryRecord) {
  return {
    id: delivery.id, seq: delivery.seq, event: delivery.event, attempt: delivery.attempt, status: delivery.status,
    http_status: delivery.httpStatus, error: delivery.error, at: new Date(delivery.at).toISOString(),
    next_attempt_at: delivery.nextAttemptAt === null ? null : new Date(delivery.nextAttemptAt).toISOString()
  }
}

/**
 * Why a webhook URL is refused, for the 400's description in the API document: the answer itself
 * is always `Invalid input` (docs/contract.md "Webhooks"), the reason goes to the log.
 */
const URL_REFUSALS =
  'A refused `url` is logged (level `warn`, `webhook URL refused`, with the request id and the reason): not an absolute URL; ' +
  'not an http or https URL; and, unless `WEBHOOK_ALLOW_PRIVATE=true`, an address in a special-purpose range (loopback, ' +
  'private-use, shared, link-local, unique-local, multicast, documentation, benchmarking, reserved…, IANA\'s registries; an ' +
  'IPv4 address embedded by 6to4, NAT64 or SIIT counts as itself), a name resolving to one, or a name that does not resolve.'

/**
 * 400 `Invalid input` when `url` may not be a webhook URL (`urlRefusal`); the reason is logged at
 * `warn` on the request's logger (its request id), docs/webhooks.md "Private addresses".
 */
async function assertAllowedUrl(url: string, allowPrivate: boolean, log: FastifyBaseLogger): Promise<void> {
  const refusal = await urlRefusal(url, allowPrivate)
  if (refusal === undefined) return
  log.warn({ url, reason: refusal }, 'webhook URL refused')
  throw new HttpError(400, Messages.invalidInput)
}

/**
 * Webhook management (docs/contract.md "Webhooks"; docs/webhooks.md), admin only: `/webhooks`,
 * `/webhooks/{id}`, its deliveries, replay and secret rotation. Order of checks: 401, 403 (before
 * the body is read), then 404 on the /webhooks/{id} routes, then the body (400).
 */
export async function webhooksRoutes(app: FastifyInstance, options: WebhooksOptions): Promise<void> {
  const { webhooks, allowPrivate, onChange } = options
  const api = app.withTypeProvider<TypeBoxTypeProvider>()
  guardEveryRoute(api, options.authenticate)

  const found = async (id: string): Promise<WebhookEndpoint> => {
    const endpoint = await webhooks.get(id)
    if (endpoint === undefined) throw new HttpError(404, Messages.webhookNotFound)
    return endpoint
  }

  api.get(
    '/webhooks',
    {
      schema: {
        tags, operationId: 'listWebhooks', summary: 'List webhook endpoints (admin)',
        description: 'Every endpoint, oldest first, with its events, whether it is enabled and why not; secrets are never listed.',
        response: { 200: successResponse(Type.Array(Webhook), Messages.webhooksListed, 'every endpoint, oldest first; never a secret.') }
      }
    },
    async function listWebhooks() {
      return envelopeOf(200, Messages.webhooksListed, (await webhooks.list()).map(webhookView))
    }
  )

  api.post(
    '/webhooks',
    {
      attachValidation: true,
      schema: {
        tags, operationId: 'createWebhook', summary: 'Add a webhook endpoint (admin)',
        description: 'It receives the changes committed after its creation, signed with the secret answered here (and only here).',
        body: WebhookInput,
        response: {
          201: successResponse(CreatedWebhook, Messages.webhookCreated, 'the endpoint with its secret, shown this once.', 201),
          400: invalidInputResponse(`the body is not a JSON object with an absolute http(s) \`url\` (not a special-purpose address unless \`WEBHOOK_ALLOW_PRIVATE=true\`), valid \`events\` and \`description\`. ${URL_REFUSALS}`)
        }
      }
    },
    async function createWebhook(request, reply) {
      assertValidBody(request)
      const { url, events, description } = request.body
      await assertAllowedUrl(url, allowPrivate, request.log)
      const endpoint = newEndpoint({ url, events, description }, (await options.changes.horizon()).lastSeq)
      await webhooks.create(endpoint)
      onChange()
      return reply.code(201).send(envelopeOf(201, Messages.webhookCreated, { ...webhookView(endpoint), secret: endpoint.secret }))
    }
  )

  api.get(
    '/webhooks/:id',
    {
      schema: {
        tags, operationId: 'getWebhook', summary: 'Get a webhook endpoint (admin)', params: WebhookParams,
        description: 'One endpoint as listed: its URL, events, description, whether it is enabled and why not; never its secret.',
        response: { 200: successResponse(Webhook, Messages.webhookRetrieved, 'the endpoint; never its secret.'), 404: notFoundResponse }
      }
    },
    async function getWebhook(request) {
      return envelopeOf(200, Messages.webhookRetrieved, webhookView(await found(request.params.id)))
    }
  )

  api.put(
    '/webhooks/:id',
    {
      attachValidation: true,
      schema: {
        tags, operationId: 'updateWebhook', summary: 'Change a webhook endpoint (admin)',
        description: 'Partial: `url`, `events`, `description`, `enabled`. Enabling clears `disabled_reason`; deliveries go on from where they stopped.',
        params: WebhookParams,
        body: WebhookPatch,
        response: {
          200: successResponse(Webhook, Messages.webhookUpdated, 'the endpoint after the change.'),
          400: invalidInputResponse(`the body is not a JSON object, or a field is not valid (a \`url\` on a special-purpose address among them). ${URL_REFUSALS}`),
          404: notFoundResponse
        }
      }
    },
    async function updateWebhook(request) {
      const current = await found(request.params.id)
      assertValidBody(request)
      const { url, events, description, enabled } = request.body
      if (url !== undefined) await assertAllowedUrl(url, allowPrivate, request.log)
      const switched = enabled !== undefined && enabled !== current.enabled
      const updated = await webhooks.update(current.id, {
        url, events, description, enabled,
        disabledReason: switched ? (enabled ? null : 'disabled by an admin') : undefined
      })
      if (updated === undefined) throw new HttpError(404, Messages.webhookNotFound)
      onChange()
      return envelopeOf(200, Messages.webhookUpdated, webhookView(updated))
    }
  )

  api.delete(
    '/webhooks/:id',
    {
      schema: {
        tags, operationId: 'deleteWebhook', summary: 'Remove a webhook endpoint (admin)', params: WebhookParams,
        description: 'Removes the endpoint and its delivery log; nothing more is sent to it.',
        response: { 200: successResponse(Type.Null(), Messages.webhookDeleted, 'null.'), 404: notFoundResponse }
      }
    },
    async function deleteWebhook(request) {
      if (!(await webhooks.delete(request.params.id))) throw new HttpError(404, Messages.webhookNotFound)
      onChange()
      return envelopeOf(200, Messages.webhookDeleted, null)
    }
  )

  api.get(
    '/webhooks/:id/deliveries',
    {
      attachValidation: true,
      schema: {
        tags, operationId: 'listWebhookDeliveries', summary: 'The delivery log of an endpoint (admin)',
        description: 'Newest first, `limit` per page (default 100) with a `Link` header to the next page; `status` filters.',
        params: WebhookParams,
        querystring: DeliveriesQuery,
        response: {
          200: withHeaders(successResponse(Type.Array(Delivery), Messages.deliveriesListed, 'the deliveries, newest first.'), {
            link: { type: 'string', description: '`<…>; rel="next"` when more deliveries follow.' }
          }),
          400: invalidInputResponse('`limit` is not 1 to 1000, `cursor` not one the `Link` header gave, or `status` not `pending`, `succeeded` or `failed`.'),
          404: notFoundResponse
        }
      }
    },
    async function listDeliveries(request, reply) {
      const endpoint = await found(request.params.id)
      assertValidBody(request)
      const { limit: limitText, cursor, status } = request.query
      const limit = limitText === undefined ? DEFAULT_PAGE : Number(limitText)
      const rows = await webhooks.deliveries(endpoint.id, { before: cursor === undefined ? undefined : deliveryPosition(cursor), limit: limit + 1, status })
      const page = rows.slice(0, limit)
      if (rows.length > limit) {
        const next = new URLSearchParams({ limit: String(limit), cursor: deliveryCursor(page[page.length - 1]!), ...(status ? { status } : {}) })
        reply.header('link', `</webhooks/${encodeURIComponent(endpoint.id)}/deliveries?${next}>; rel="next"`)
      }
      return envelopeOf(200, Messages.deliveriesListed, page.map(deliveryView))
    }
  )

  api.post(
    '/webhooks/:id/replay',
    {
      attachValidation: true,
      schema: {
        tags, operationId: 'replayWebhook', summary: 'Send the changes after a sequence number again (admin)',
        description: 'Every change after `after` (exclusive) that the change log still keeps is sent again, in order, with the same `webhook-id`s. A disabled endpoint receives them once enabled.',
        params: WebhookParams,
        body: ReplayInput,
        response: {
          202: successResponse(Type.Null(), Messages.replayScheduled, 'null.', 202),
          400: invalidInputResponse('the body is not a JSON object with `after`, an integer from 0 to the change log\'s last number.'),
          404: notFoundResponse
        }
      }
    },
    async function replayWebhook(request, reply) {
      const endpoint = await found(request.params.id)
      assertValidBody(request)
      const { lastSeq } = await options.changes.horizon()
      if (request.body.after > lastSeq) throw new HttpError(400, Messages.invalidInput)
      if (!(await webhooks.replay(endpoint.id, request.body.after, Date.now()))) throw new HttpError(404, Messages.webhookNotFound)
      onChange()
      return reply.code(202).send(envelopeOf(202, Messages.replayScheduled, null))
    }
  )

  api.post(
    '/webhooks/:id/rotate',
    {
      attachValidation: true,
      schema: {
        tags, operationId: 'rotateWebhookSecret', summary: 'Issue a new signing secret (admin)',
        description: 'Deliveries carry two signatures (the new secret\'s and the old one\'s) for `overlap` seconds, then the new one only.',
        params: WebhookParams,
        body: RotateInput,
        response: {
          200: successResponse(RotatedSecret, Messages.webhookSecretRotated, 'the new secret, shown this once.'),
          400: invalidInputResponse('`overlap` is not an integer number of seconds from 0 to 604800.'),
          404: notFoundResponse
        }
      }
    },
    async function rotateWebhookSecret(request) {
      const endpoint = await found(request.params.id)
      assertValidBody(request)
      const until = Date.now() + (request.body?.overlap ?? DEFAULT_OVERLAP_SECONDS) * 1000
      const secret = newSecret()
      if ((await webhooks.update(endpoint.id, { secret, previousSecret: endpoint.secret, previousSecretUntil: until })) === undefined) {
        throw new HttpError(404, Messages.webhookNotFound)
      }
      onChange()
      return envelopeOf(200, Messages.webhookSecretRotated, { id: endpoint.id, secret, previous_secret_expires_at: new Date(until).toISOString() })
    }
  )
}
