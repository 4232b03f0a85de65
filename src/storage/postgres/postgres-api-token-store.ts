import type pg from 'pg'
import { SqlApiTokenStore } from '../sql/sql-api-token-store.js'
import { classified } from './postgres-errors.js'

/**
 * The {@link SqlApiTokenStore} on PostgreSQL, on the books' pool, each statement bounded by
 * `queryTimeoutMs`; an unreachable database is a StorageUnavailableError (503). Every write is one
 * statement, committed when it resolves.
 */
export function postgresApiTokenStore(pool: pg.Pool, queryTimeoutMs: number): SqlApiTokenStore {
  const query = async <R extends pg.QueryResultRow>(text: string, values: readonly unknown[]) => {
    const config: pg.QueryConfig & { query_timeout: number } = { text, values: [...values], query_timeout: queryTimeoutMs }
    try {
      return await pool.query<R>(config)
    } catch (error) {
      throw classified(error)
    }
  }
  return new SqlApiTokenStore(
    {
      rows: async <R>(sql: string, values: readonly unknown[]) => (await query(sql, values)).rows as R[],
      changes: async (sql, values) => (await query(sql, values)).rowCount ?? 0,
      note: async (sql, values) => {
        await query(sql, values)
      }
    },
    'postgres'
  )
}
