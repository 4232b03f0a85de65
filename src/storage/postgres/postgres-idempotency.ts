import type pg from 'pg'
import type { Book, BookInput } from '../../book/schema.js'
import { bookStatements, insertValues } from '../sql/book-statements.js'
import type { IdempotencyClaim, IdempotentCreate } from '../contracts/idempotency.js'
import { answerFromRow, idempotencyStatements, insertedRow, type IdempotencyRow } from '../sql/idempotency-statements.js'
import type { ChangeContext } from '../contracts/change-log.js'
import { contextObject } from '../sql/change-log-statements.js'
import { classified } from './postgres-errors.js'
import { inTransaction } from './postgres-transaction.js'

const SQL = idempotencyStatements('postgres')
const INSERT_BOOK = bookStatements('postgres').insert

/**
 * The transaction-scoped advisory lock of one subject and key, taken without waiting: held for
 * the whole transaction that stores the key's book, so a request with the same key on any
 * instance finds it held and answers 409 `Request in progress` instead of waiting.
 */
const TRY_LOCK = 'SELECT pg_try_advisory_xact_lock(hashtextextended($1, 0)) AS locked'
/** The same, and the transaction's change context ($2, JSON text: `ChangeContext` in contracts/change-log.ts) in the same round trip. */
const TRY_LOCK_IN_CONTEXT = `${TRY_LOCK}, set_config('book_service.change_context', $2, true)`

/**
 * `Idempotency-Key` creates on PostgreSQL (`BookStore.createIdempotent`): each in one transaction
 * on a client of `pool`: the key's advisory lock (not waited for), the lookup of its stored answer,
 * then the book and the answer, committed together. Each statement runs with `queryTimeoutMs`.
 *
 * @throws {StorageUnavailableError} when the database is unreachable (nothing was committed, or
 *   the commit's outcome is unknown: a retry with the same key settles it).
 */
export function idempotentCreates(pool: pg.Pool, queryTimeoutMs: number) {
  return {
    create(input: BookInput, claim: IdempotencyClaim, context: ChangeContext): Promise<IdempotentCreate> {
      return inTransaction(pool, queryTimeoutMs, async (query): Promise<IdempotentCreate> => {
        const [lock] = await query<{ locked: boolean }>(TRY_LOCK_IN_CONTEXT, [`${claim.subject}\n${claim.key}`, JSON.stringify(contextObject(context))])
        if (!lock!.locked) return { outcome: 'inProgress' }
        const [row] = await query<IdempotencyRow>(SQL.find, [claim.subject, claim.key])
        const replay = answerFromRow(row, claim)
        if (replay) return replay
        const [book] = await query<Book>(INSERT_BOOK, insertValues(input))
        await query(SQL.save, insertedRow(claim, book!))
        return { outcome: 'created', status: 201, book: book! }
      })
    },

    async trim(before: string): Promise<number> {
      try {
        return (await pool.query({ text: SQL.trim, values: [before] })).rowCount ?? 0
      } catch (error) {
        throw classified(error)
      }
    }
  }
}
