import type Database from 'better-sqlite3'
import { SqlWebhookStore, type WebhookSqlRunner } from '../sql/sql-webhook-store.js'
import { preparedOnce } from './sqlite-group-commit.js'

/**
 * The {@link SqlWebhookStore} on SQLite. Reads and single statements run on the store's second
 * connection (the one of the login counters, `synchronous=NORMAL`: a commit survives a crash of
 * the process, and the writer thread's next `synchronous=FULL` commit syncs it). Transactions (the
 * dispatcher's delivery records several times a second, a replay, a removal) go to `transact`, the
 * store's group commit on its writer thread: there they join the books' next commit, and the
 * event loop never waits for the write lock the writer holds through its fsync. Without
 * `transact` (`book-service webhooks`), transactions run on `db`. Statements are prepared once each.
 */
export function sqliteWebhookStore(db: Database.Database, transact?: WebhookSqlRunner['atomically']): SqlWebhookStore {
  const statement = preparedOnce(db)
  const execute = (sql: string, values: readonly unknown[]): unknown[] => {
    const compiled = statement(sql)
    if (compiled.reader) return compiled.all(...values)
    compiled.run(...values)
    return []
  }
  // Without a group commit (`book-service webhooks`, one connection): `BEGIN IMMEDIATE` here, the
  // busy timeout waiting for another process's writer.
  const local = db.transaction((statements: readonly { sql: string; values: readonly unknown[] }[]) =>
    statements.map(({ sql, values }) => execute(sql, values))
  )
  const runner: WebhookSqlRunner = {
    rows: async <R>(sql: string, values: readonly unknown[]) => statement(sql).all(...values) as R[],
    changes: async (sql, values) => statement(sql).run(...values).changes,
    atomically: transact ?? (async (statements) => local.immediate(statements))
  }
  return new SqlWebhookStore(runner, 'sqlite')
}
