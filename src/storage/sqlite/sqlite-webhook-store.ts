import type Database from 'better-sqlite3'
import { SqlWebhookStore, type WebhookSqlRunner } from '../sql/sql-webhook-store.js'
import { preparedQueries } from './sqlite-statements.js'
import type { WriteQueue } from './sqlite-write-queue.js'

/**
 * The {@link SqlWebhookStore} on SQLite. Its reads and single statements run on the store's second
 * connection (the one of the login counters, `synchronous=NORMAL`: a commit survives a crash of
 * the process, and the writer thread's next `synchronous=FULL` commit syncs it), prepared once
 * each. Its transactions (the dispatcher's delivery log, an endpoint's replay or removal) go
 * through the book writes' queue when one is given (sqlite-write-queue.ts), committed with the
 * next batch on the writer thread: at volume the delivery log takes thousands of rows a second,
 * which the thread that answers requests does not write. Without one (`book-service webhooks`)
 * a transaction is `BEGIN IMMEDIATE` on `db` (the busy timeout waits for another process's writer).
 */
export function sqliteWebhookStore(db: Database.Database, writes?: WriteQueue): SqlWebhookStore {
  const statement = preparedQueries(db)
  const batch = db.transaction((statements: readonly { sql: string; values: readonly unknown[] }[]) =>
    statements.map(({ sql, values }) => {
      const compiled = statement(sql)
      if (compiled.reader) return compiled.all(...values)
      compiled.run(...values)
      return []
    })
  )
  const runner: WebhookSqlRunner = {
    rows: async <R>(sql: string, values: readonly unknown[]) => statement(sql).all(...values) as R[],
    changes: async (sql, values) => statement(sql).run(...values).changes,
    atomically: async (statements) =>
      writes === undefined ? batch.immediate(statements) : writes.write<unknown[][]>({ op: 'statements', statements }, () => {})
  }
  return new SqlWebhookStore(runner, 'sqlite')
}
