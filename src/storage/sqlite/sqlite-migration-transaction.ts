import type Database from 'better-sqlite3'
import type { SqliteDatabase } from 'kysely'

/**
 * The transaction statements a migration may issue itself (migration 0002 wraps its work in one;
 * Kysely's `db.transaction()` sends `begin`, `commit` and `rollback`), matched without case, and what they become inside the one transaction {@link inOneTransaction} runs every pending
 * migration in: a savepoint, so the migration still applies entirely or not at all.
 */
const NESTED: Readonly<Record<string, string>> = {
  BEGIN: 'SAVEPOINT migration',
  'BEGIN IMMEDIATE': 'SAVEPOINT migration',
  COMMIT: 'RELEASE migration',
  ROLLBACK: 'ROLLBACK TO migration'
}

/**
 * The connection `db` as Kysely's SQLite dialect sees it while the migrator runs inside a
 * transaction the caller already opened (`BEGIN IMMEDIATE`, sqlite-connection.ts `migrateConnection`):
 * a migration's own `BEGIN IMMEDIATE`, `COMMIT` and `ROLLBACK` become a savepoint, its release
 * and its rollback, since SQLite refuses a transaction inside a transaction. Closing it leaves
 * the connection open (the caller owns it).
 */
export function inOneTransaction(db: Database.Database): SqliteDatabase {
  return {
    close: () => {},
    prepare: (sql) => db.prepare(NESTED[sql.trim().toUpperCase()] ?? sql)
  }
}
