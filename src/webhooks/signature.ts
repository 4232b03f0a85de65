import { createHmac, createSecretKey, randomBytes, type KeyObject } from 'node:crypto'

/** The prefix of a Standard Webhooks secret: the rest is its key, in base64. */
const SECRET_PREFIX = 'whsec_'

/** A new signing secret: `whsec_` and 32 random bytes in base64 (Standard Webhooks 1.0). */
export function newSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64')
}

/**
 * The signing keys of the secrets seen, by secret: a secret's key never changes, and decoding it
 * for every attempt costs more than the HMAC itself. Emptied past {@link KEYS_KEPT} entries
 * (endpoints added and rotated over the process's life).
 */
const keys = new Map<string, KeyObject>()
const KEYS_KEPT = 1000

function keyOf(secret: string): KeyObject {
  let key = keys.get(secret)
  if (key === undefined) {
    if (keys.size >= KEYS_KEPT) keys.clear()
    key = createSecretKey(Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64'))
    keys.set(secret, key)
  }
  return key
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
    .map((secret) => `v1,${createHmac('sha256', keyOf(secret)).update(`${webhookId}.${timestamp}.${body}`).digest('base64')}`)
    .join(' ')
}
