import type { Book } from '../../book/schema.js'
import { placeholders } from './book-statements.js'
import type { Engine } from '../contracts/engine.js'
import type { IdempotencyClaim, IdempotentCreate } from '../contracts/idempotency.js'

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
