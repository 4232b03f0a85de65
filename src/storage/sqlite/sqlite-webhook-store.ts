import type Database from 'better-sqlite3'
import { SqlWebhookStore, type WebhookSqlRunner } from '../sql/sql-webhook-store.js'

/**
 * The {@link SqlWebhookStore} on SQLite, on the store's second connection (the one of the login
 * counters, `synchronous=NORMAL`: a commit survives a crash of the process, and the writer
 * thread's next `synchronous=FULL` commit syncs it). Statements are prepared once each; a
 * transaction is `BEGIN IMMEDIATE` (the busy timeout waits for another process's writer).
 */
export function sqliteWebhookStore(db: Database.Database): SqlWebhookStore {
  const prepared = new Map<string, Database.Statement>()
  const statement = (sql: string): Database.Statement => {
    let found = prepared.get(sql)
    if (found === undefined) {
      found = db.prepare(sql)
      prepared.set(sql, found)
    }
    return found
  }
  const execute = (sql: string, values: readonly unknown[]): unknown[] => {
    const compiled = statement(sql)
    if (compiled.reader) return compiled.all(...values)
    compiled.run(...values)
    return []
  }
  const batch = db.transaction((statements: readonly { sql: string; values: readonly unknown[] }[]) =>
    statements.map(({ sql, values }) => execute(sql, values))
  )
  const runner: WebhookSqlRunner = {
    rows: async <R>(sql: string, values: readonly unknown[]) => statement(sql).all(...values) as R[],
    changes: async (sql, values) => statement(sql).run(...values).changes,
    atomically: async (statements) => batch.immediate(statements)
  }
  return new SqlWebhookStore(runner, 'sqlite')
}
