import type pg from 'pg'
import { StorageUnavailableError } from '../book-store.js'
import { classified } from './errors.js'

/** Runs one statement of a transaction, with its values; resolves with the rows. */
export type TransactionQuery = <Row extends pg.QueryResultRow>(text: string, values?: unknown[]) => Promise<Row[]>

/**
 * Runs `work` (given a statement runner and the client itself) in one transaction on a client of
 * `pool`: `BEGIN`, its statements (each with the
 * read timeout `queryTimeoutMs`), `COMMIT`; on any error `ROLLBACK`, and a client whose
 * connection failed is discarded rather than returned to the pool.
 *
 * @throws the classified error of the failing statement (`StorageUnavailableError` when the
 *   database is unreachable or refuses writes), or `work`'s own error.
 */
export async function inTransaction<T>(
  pool: pg.Pool,
  queryTimeoutMs: number,
  work: (query: TransactionQuery, client: pg.PoolClient) => Promise<T>
): Promise<T> {
  let client: pg.PoolClient
  try {
    client = await pool.connect()
  } catch (error) {
    throw classified(error)
  }
  const query: TransactionQuery = async <Row extends pg.QueryResultRow>(text: string, values: unknown[] = []) => {
    try {
      const config: pg.QueryConfig & { query_timeout: number } = { text, values, query_timeout: queryTimeoutMs }
      return (await client.query<Row>(config)).rows
    } catch (error) {
      throw classified(error)
    }
  }
  try {
    await query('BEGIN')
    const result = await work(query, client)
    await query('COMMIT')
    client.release()
    return result
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {})
    client.release(error instanceof StorageUnavailableError ? error : undefined)
    throw error
  }
}
