import type { Book } from '../../book/schema.js'
import { placeholders } from './book-statements.js'
import type { Engine } from '../contracts/engine.js'

/**
 * An `Idempotency-Key` on `POST /book` (docs/contract.md "Hardening"), as the stores keep it:
 * one row of `idempotency_keys` (migration 0005) per subject and key, written in the same
 * transaction as the book it created, so a book and its key are stored together or not at all.
 */
export interface IdempotencyClaim {
  /** The token's `sub` claim as JSON text (`null` when absent): keys are scoped to it. */
  subject: string
  /** The `Idempotency-Key` header's value. */
  key: string
  /** The SHA-256 (hex) of the book the body described: a retry must describe the same book. */
  fingerprint: string
  /** When this request arrived: ISO 8601 UTC (the row's `created_at` when it creates the book). */
  now: string
  /** Rows created before this (ISO 8601 UTC) have expired: they are replaced, never replayed. */
  expiredBefore: string
}

/**
 * What a create with an {@link IdempotencyClaim} gave:
 * - `created`: the book was stored with the key (status 201);
 * - `replayed`: the key was used before with the same fingerprint: its first answer, nothing stored;
 * - `reused`: the key was used before with another fingerprint: nothing stored (422);
 * - `inProgress`: another request with the key is being stored right now (409).
 */
export type IdempotentCreate =
  | { outcome: 'created'; status: number; book: Book }
  | { outcome: 'replayed'; status: number; book: Book }
  | { outcome: 'reused' }
  | { outcome: 'inProgress' }

/** How long a key's first answer is kept and replayed: 24 h, in milliseconds (docs/contract.md "Hardening"). */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000

/** A stored key's row, as the lookup reads it. */
export interface IdempotencyRow {
  fingerprint: string
  status: number
  response: string
  created_at: string
}

/**
 * The statements of `idempotency_keys` on `engine` (placeholders `?` or `$n`). Parameters:
 * - `find`: subject, key (an {@link IdempotencyRow});
 * - `save`: subject, key, fingerprint, status, book id, response (the book as JSON), created at;
 *   an expired row of the same subject and key is overwritten;
 * - `trim`: created before (removes every expired row).
 */
export function idempotencyStatements(engine: Engine) {
  const [subject, key] = placeholders(engine, 2)
  const values = placeholders(engine, 7).join(', ')
  const columns = 'subject, idempotency_key, fingerprint, status, book_id, response, created_at'
  return {
    find: `SELECT fingerprint, status, response, created_at FROM idempotency_keys WHERE subject = ${subject} AND idempotency_key = ${key}`,
    save: `INSERT INTO idempotency_keys (${columns}) VALUES (${values})
      ON CONFLICT (subject, idempotency_key) DO UPDATE SET fingerprint = excluded.fingerprint, status = excluded.status,
      book_id = excluded.book_id, response = excluded.response, created_at = excluded.created_at`,
    trim: `DELETE FROM idempotency_keys WHERE created_at < ${subject}`
  }
}

/**
 * What a stored row means for a new request with `claim`: `undefined` when there is none or it has
 * expired (the book is to be created), else the replayed first answer or `reused`.
 */
export function answerFromRow(row: IdempotencyRow | undefined, claim: IdempotencyClaim): IdempotentCreate | undefined {
  if (row === undefined || row.created_at < claim.expiredBefore) return undefined
  if (row.fingerprint !== claim.fingerprint) return { outcome: 'reused' }
  return { outcome: 'replayed', status: Number(row.status), book: JSON.parse(row.response) as Book }
}

/** The values of the `save` statement for `book`, created with `claim`. */
export function insertedRow(claim: IdempotencyClaim, book: Book): unknown[] {
  return [claim.subject, claim.key, claim.fingerprint, 201, book.id, JSON.stringify(book), claim.now]
}
