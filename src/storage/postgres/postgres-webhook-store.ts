import type pg from 'pg'
import { SqlWebhookStore, type WebhookSqlRunner } from '../sql/sql-webhook-store.js'
import { classified } from './postgres-errors.js'

/**
 * The {@link SqlWebhookStore} on PostgreSQL, on the books' pool, each query bounded by the
 * store's query timeout; an unreachable database is a StorageUnavailableError (503).
 */
export function postgresWebhookStore(pool: pg.Pool, queryTimeoutMs: number): SqlWebhookStore {
  const query = async <R extends pg.QueryResultRow>(client: pg.Pool | pg.PoolClient, text: string, values: readonly unknown[]) => {
    const config: pg.QueryConfig & { query_timeout: number } = { text, values: [...values], query_timeout: queryTimeoutMs }
    return client.query<R>(config)
  }
  const runner: WebhookSqlRunner = {
    async rows<R>(sql: string, values: readonly unknown[]) {
      try {
        return (await query(pool, sql, values)).rows as R[]
      } catch (error) {
        throw classified(error)
      }
    },
    async changes(sql, values) {
      try {
        return (await query(pool, sql, values)).rowCount ?? 0
      } catch (error) {
        throw classified(error)
      }
    },
    async atomically(statements) {
      let client: pg.PoolClient | undefined
      try {
        client = await pool.connect()
        await client.query('BEGIN')
        const results: unknown[][] = []
        for (const { sql, values } of statements) results.push((await query(client, sql, values)).rows)
        await client.query('COMMIT')
        return results
      } catch (error) {
        await client?.query('ROLLBACK').catch(() => {})
        throw classified(error)
      } finally {
        client?.release()
      }
    }
  }
  return new SqlWebhookStore(runner, 'postgres')
}
