import { createHmac, randomBytes } from 'node:crypto'

/** The prefix of a Standard Webhooks secret: the rest is its key, in base64. */
const SECRET_PREFIX = 'whsec_'

/** A new signing secret: `whsec_` and 32 random bytes in base64 (Standard Webhooks 1.0). */
export function newSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64')
}

/**
 * The `webhook-signature` header of one attempt (Standard Webhooks 1.0; docs/contract.md "Webhooks"):
 * for each secret, `v1,` and the base64 HMAC-SHA256 of `id.timestamp.body` keyed by the
 * base64-decoded part of the secret after `whsec_`; several (a rotation's overlap) separated by
 * spaces, the newest first.
 *
 * @param timestamp Unix seconds, as sent in `webhook-timestamp`.
 */
export function signatureHeader(secrets: readonly string[], webhookId: string, timestamp: number, body: string): string {
  return secrets
    .map((secret) => {
      const key = Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64')
      return `v1,${createHmac('sha256', key).update(`${webhookId}.${timestamp}.${body}`).digest('base64')}`
    })
    .join(' ')
}
