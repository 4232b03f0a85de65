import { urlShapeRefusal } from '../../../../src/webhooks/address-ranges.js'
import { strings } from '../../strings/index.js'
import type { Webhook } from '../../../../src/client/index.js'

/** What the page says about a webhook URL before sending it. */
export interface UrlCheck {
  /** Why it cannot be sent at all (not absolute, not http(s)): the form is not submitted. */
  error?: string
  /** Why the service may refuse it (a special-purpose address; WEBHOOK_ALLOW_PRIVATE): it is still sent. */
  warning?: string
  /** The reason alone (`127.0.0.1 is a special-purpose address (loopback)`), for the message of a 400. */
  refusal?: string
}

/**
 * The page's own check of a webhook URL (docs/webhooks.md "Private addresses"), by the rules the
 * service applies before resolving a name (`src/webhooks/address-ranges.ts`): the service's 400
 * says only `Invalid input`, so the page tells why first. A special-purpose address is a warning,
 * not an error: the page cannot know whether the service runs with `WEBHOOK_ALLOW_PRIVATE=true`.
 */
export function checkUrl(url: string): UrlCheck {
  const shape = urlShapeRefusal(url, true)
  if (shape !== undefined) return { error: strings.webhooks.urlInvalid(shape) }
  const range = urlShapeRefusal(url, false)
  return range === undefined ? {} : { warning: strings.webhooks.urlPrivate(range), refusal: range }
}

/** `url` in one spelling (`HTTP://Host:80/a` and `http://host/a` are the same endpoint). */
function normalized(url: string): string {
  try {
    return new URL(url).href
  } catch {
    return url
  }
}

/** The endpoint among `webhooks` (other than `except`) that already has `url`, if any. */
export function endpointWithUrl(webhooks: readonly Webhook[], url: string, except?: string): Webhook | undefined {
  return webhooks.find((webhook) => webhook.id !== except && normalized(webhook.url) === normalized(url))
}
