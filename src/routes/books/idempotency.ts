import { createHash } from 'node:crypto'
import type { FastifyRequest } from 'fastify'
import Type from 'typebox'
import { tokenSubject } from '../../http/pipeline/auth-hook.js'
import type { Book, BookInput } from '../../book/schema.js'
import { HttpError } from '../../http/errors/http-error.js'
import { Messages } from '../../http/messages.js'
import type { BookStore } from '../../storage/contracts/book-store.js'
import { IDEMPOTENCY_TTL_MS, type IdempotencyClaim } from '../../storage/contracts/idempotency.js'
import { changeContextOf } from './change-context.js'

/** Longest `Idempotency-Key` accepted, in characters (a UUID is 36; longer is 400 `Invalid input`). */
export const IDEMPOTENCY_KEY_MAX_LENGTH = 255

/**
 * The request headers of `POST /book` as the route schema validates and the API document shows
 * them: the optional `Idempotency-Key` (IETF httpapi draft "The Idempotency-Key HTTP Header Field").
 */
export const CreateBookHeaders = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: IDEMPOTENCY_KEY_MAX_LENGTH,
      description:
        'Makes the create safe to retry (after a timeout, a lost connection or a 503): a retry with the same key and the ' +
        'same body within 24 h, from the same token subject (`sub`), gets the first answer again (201 with the same book) and ' +
        'creates nothing. The same key with another body: 422; while the first request is still being stored: 409. ' +
        `1 to ${IDEMPOTENCY_KEY_MAX_LENGTH} characters, e.g. a UUID.`
    })
  )
})

/**
 * The response header that marks a replayed answer (`Idempotent-Replayed: true`, the name Stripe
 * and others use): the 201 is the key's first answer again and nothing was stored by this request
 * (docs/api.md "Retries and Idempotency-Key"). A client counting what it stored (the web page's import)
 * reads it; a first answer does not carry it.
 */
export const REPLAYED_HEADER = 'idempotent-replayed'

/** The API document's description of {@link REPLAYED_HEADER}. */
export const replayedHeaderDocument = {
  [REPLAYED_HEADER]: {
    type: 'string' as const,
    description: '`true` when this 201 is the replayed first answer of the same `Idempotency-Key` (nothing was stored by this request); absent otherwise.'
  }
}

/**
 * `POST /book` with an `Idempotency-Key` (docs/contract.md "Hardening") on `books`. The stored
 * answers are the truth across processes and instances (`BookStore.createIdempotent`); the keys
 * in flight in this process are answered 409 here without a trip to the storage.
 */
export function idempotentCreate(books: BookStore) {
  const inFlight = new Set<string>()

  /**
   * Creates `input` under `key` for `request`'s token subject, or replays the key's first answer.
   *
   * @returns the status and book to answer with (201 when created or replayed), and whether it is
   *   a replay (the route then adds {@link REPLAYED_HEADER}).
   * @throws {HttpError} 409 `Request in progress`, 422 `Idempotency key reused with a different body`.
   */
  return async function create(request: FastifyRequest, key: string, input: BookInput): Promise<{ status: number; book: Book; replayed: boolean }> {
    const claim = claimOf(JSON.stringify(tokenSubject(request) ?? null), key, input, Date.now())
    const scope = JSON.stringify([claim.subject, key])
    if (inFlight.has(scope)) throw new HttpError(409, Messages.requestInProgress)
    inFlight.add(scope)
    try {
      const answer = await books.createIdempotent(input, claim, changeContextOf(request))
      if (answer.outcome === 'inProgress') throw new HttpError(409, Messages.requestInProgress)
      if (answer.outcome === 'reused') throw new HttpError(422, Messages.idempotencyKeyReused)
      if (answer.outcome === 'replayed') request.log.info({ idempotencyKey: key, bookId: answer.book.id }, 'idempotent retry answered with its first answer')
      return { status: answer.status, book: answer.book, replayed: answer.outcome === 'replayed' }
    } finally {
      inFlight.delete(scope)
    }
  }
}

/**
 * The claim of a create: `subject` (the `sub` claim as JSON text), `key`, the fingerprint of the
 * book `input` describes (so bodies that differ only in ignored fields or layout are the same),
 * and the times, from `nowMs` (ms since the epoch).
 */
function claimOf(subject: string, key: string, input: BookInput, nowMs: number): IdempotencyClaim {
  const fingerprint = createHash('sha256').update(JSON.stringify([input.title, input.author, input.year])).digest('hex')
  return {
    subject,
    key,
    fingerprint,
    now: new Date(nowMs).toISOString(),
    expiredBefore: new Date(nowMs - IDEMPOTENCY_TTL_MS).toISOString()
  }
}
