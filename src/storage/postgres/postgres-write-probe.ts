import type pg from 'pg'
import { inTransaction } from './postgres-transaction.js'

/** The probe's row: an empty subject, which no request has (a request's subject is JSON text, never empty). */
const PROBE_ROW = "subject = '' AND idempotency_key = ''"

/**
 * The readiness probe's write on PostgreSQL (docs/operations.md "Readiness"): one transaction on a client of
 * `pool` that writes a row of `idempotency_keys` and removes it, so it succeeds only when the
 * database stores writes again (not read-only, its disk not full). Each statement runs with
 * `queryTimeoutMs`.
 *
 * @throws the classified error (`StorageUnavailableError` when unreachable or refusing writes).
 */
export async function probeWrite(pool: pg.Pool, queryTimeoutMs: number): Promise<void> {
  await inTransaction(pool, queryTimeoutMs, async (query) => {
    await query(`INSERT INTO idempotency_keys (subject, idempotency_key, fingerprint, status, book_id, response, created_at)
      VALUES ('', '', '', 0, 0, '', '') ON CONFLICT DO NOTHING`)
    await query(`DELETE FROM idempotency_keys WHERE ${PROBE_ROW}`)
  })
}
