import type { Kysely } from 'kysely'
import type { MarkedMigration } from './migration.js'

/** Migration 0006 (`0006_login_attempts`): its compatibility mark and its `up`, the same on both engines. */
export function loginAttempts(): MarkedMigration {
  return {
    olderReleasesMayRun: true,
    // The login limits' counters (storage/contracts/login-attempts.ts), shared by every process on the
    // database: one row per key (an address, an account), the start of its window (ms since
    // the epoch) and the attempts in it.
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('login_attempts')
        .addColumn('key', 'text', (column) => column.primaryKey())
        .addColumn('window_start', 'bigint', (column) => column.notNull())
        .addColumn('attempts', 'integer', (column) => column.notNull())
        .execute()
    }
  }
}
