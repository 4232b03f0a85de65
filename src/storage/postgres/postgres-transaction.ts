import type pg from 'pg'
import { StorageUnavailableError } from '../contracts/database.js'
import { classified } from './postgres-errors.js'

/** Runs one statement of a transaction, with its values; resolves with the rows. */
export type TransactionQuery = <Row extends pg.QueryResultRow>(text: string, values?: unknown[]) => Promise<Row[]>

/**
 * Runs `work` (given a statement runner and the client itself) in one transaction on a client of
 * `pool`: `BEGIN`, its statements (each with the
 * read timeout `queryTimeoutMs`), `COMMIT`; on any error `ROLLBACK` (bounded the same way), and a
 * client whose connection failed or timed out is discarded rather than returned to the pool.
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
    client.release(await rolledBack(client, queryTimeoutMs, error))
    throw error
  }
}

/**
 * Ends the failed transaction on `client` within `queryTimeoutMs`, as every statement is
 * (docs/several-instances.md "Running several instances"): when the connection failed or a statement timed out
 * (`StorageUnavailableError`), no `ROLLBACK` is sent at all (a timed-out statement still holds the
 * connection, so a `ROLLBACK` would wait behind it until the database answers or TCP gives up):
 * the connection is discarded instead, and the server rolls back a transaction whose connection
 * closed. Otherwise `ROLLBACK` runs with the same read timeout, and a connection where it fails is
 * discarded too.
 *
 * @returns the error to release the client with (discarded), or undefined (back to the pool).
 */
async function rolledBack(client: pg.PoolClient, queryTimeoutMs: number, error: unknown): Promise<Error | undefined> {
  if (error instanceof StorageUnavailableError) return error
  try {
    const rollback: pg.QueryConfig & { query_timeout: number } = { text: 'ROLLBACK', query_timeout: queryTimeoutMs }
    await client.query(rollback)
    return undefined
  } catch (rollbackError) {
    return rollbackError as Error
  }
}
