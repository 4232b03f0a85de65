import type Database from 'better-sqlite3'
import { SqlApiTokenStore } from '../sql/sql-api-token-store.js'

/** The statements of `db`, each prepared the first time it runs. */
function preparedOn(db: Database.Database): (sql: string) => Database.Statement {
  const prepared = new Map<string, Database.Statement>()
  return (sql) => {
    let found = prepared.get(sql)
    if (found === undefined) {
      found = db.prepare(sql)
      prepared.set(sql, found)
    }
    return found
  }
}

/** Resolves on a later turn of the event loop. */
const laterTurn = () => new Promise((resolve) => setImmediate(resolve))

/**
 * The {@link SqlApiTokenStore} on SQLite. Reads and the writes that must last (create, revoke)
 * run on `db`, the store's main connection (`synchronous=FULL`: committed means on disk); a
 * token's last use on `counters`, the login counters' connection (`synchronous=NORMAL`: no fsync
 * on the request's thread; sqlite-login-attempts.ts). Each write is one statement begun on a later
 * turn of the event loop: an account transaction on the main connection (sqlite-account-store.ts)
 * spans the awaits of one turn, and a statement begun inside it would join it (on `db`) or wait
 * for a lock this thread holds (on `counters`).
 */
export function sqliteApiTokenStore(db: Database.Database, counters: Database.Database = db): SqlApiTokenStore {
  const main = preparedOn(db)
  const side = counters === db ? main : preparedOn(counters)
  return new SqlApiTokenStore(
    {
      rows: async <R>(sql: string, values: readonly unknown[]) => main(sql).all(...values) as R[],
      changes: async (sql, values) => {
        await laterTurn()
        return main(sql).run(...values).changes
      },
      note: async (sql, values) => {
        await laterTurn()
        side(sql).run(...values)
      }
    },
    'sqlite'
  )
}
