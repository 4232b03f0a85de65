import type pg from 'pg'
import type { Book, BookInput } from '../../book/schema.js'
import { StorageUnavailableError } from '../book-store.js'
import { bookStatements, insertValues } from '../book-sql.js'
import { answerFromRow, idempotencyStatements, insertedRow, type IdempotencyClaim, type IdempotencyRow, type IdempotentCreate } from '../idempotency.js'
import { classified } from './errors.js'

const SQL = idempotencyStatements('postgres')
const INSERT_BOOK = bookStatements('postgres').insert

/**
 * The transaction-scoped advisory lock of one subject and key, taken without waiting: held for
 * the whole transaction that stores the key's book, so a request with the same key on any
 * instance finds it held and answers 409 `Request in progress` instead of waiting.
 */
const TRY_LOCK = 'SELECT pg_try_advisory_xact_lock(hashtextextended($1, 0)) AS locked'

/**
 * `Idempotency-Key` creates on PostgreSQL (`BookStore.createIdempotent`): each in one transaction
 * on a client of `pool`: the key's advisory lock (not waited for), the lookup of its stored answer,
 * then the book and the answer, committed together. Each statement runs with `queryTimeoutMs`.
 *
 * @throws {StorageUnavailableError} when the database is unreachable (nothing was committed, or
 *   the commit's outcome is unknown: a retry with the same key settles it).
 */
export function idempotentCreates(pool: pg.Pool, queryTimeoutMs: number) {
  async function run<Row extends pg.QueryResultRow>(client: pg.PoolClient, text: string, values: unknown[]): Promise<Row[]> {
    try {
      const query: pg.QueryConfig & { query_timeout: number } = { text, values, query_timeout: queryTimeoutMs }
      return (await client.query<Row>(query)).rows
    } catch (error) {
      throw classified(error)
    }
  }

  return {
    async create(input: BookInput, claim: IdempotencyClaim): Promise<IdempotentCreate> {
      let client: pg.PoolClient
      try {
        client = await pool.connect()
      } catch (error) {
        throw classified(error)
      }
      try {
        await run(client, 'BEGIN', [])
        const [lock] = await run<{ locked: boolean }>(client, TRY_LOCK, [`${claim.subject}\n${claim.key}`])
        let answer: IdempotentCreate
        if (!lock!.locked) answer = { outcome: 'inProgress' }
        else {
          const [row] = await run<IdempotencyRow>(client, SQL.find, [claim.subject, claim.key])
          const replay = answerFromRow(row, claim)
          if (replay) answer = replay
          else {
            const [book] = await run<Book>(client, INSERT_BOOK, insertValues(input))
            await run(client, SQL.save, insertedRow(claim, book!))
            answer = { outcome: 'created', status: 201, book: book! }
          }
        }
        await run(client, 'COMMIT', [])
        client.release()
        return answer
      } catch (error) {
        await client.query('ROLLBACK').catch(() => {})
        client.release(error instanceof StorageUnavailableError ? error : undefined)
        throw error
      }
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
