import type { Kysely } from 'kysely'
import type { MarkedMigration } from './migration.js'

/** Migration 0003 (`0003_accounts`): its compatibility mark and its `up`, the same on both engines. */
export function accounts(): MarkedMigration {
  return {
    olderReleasesMayRun: true,
    // Accounts and their roles. `username_key` is the lower-cased NFC username (unique
    // ignoring case); `generation` changes on every password or role change (token revocation).
    // Times are ISO 8601 UTC text on both engines, written by the service.
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('accounts')
        .addColumn('username_key', 'text', (column) => column.primaryKey())
        .addColumn('username', 'text', (column) => column.notNull())
        .addColumn('password_hash', 'text', (column) => column.notNull())
        .addColumn('role', 'text', (column) => column.notNull())
        .addColumn('generation', 'text', (column) => column.notNull())
        .addColumn('created_at', 'text', (column) => column.notNull())
        .addColumn('updated_at', 'text', (column) => column.notNull())
        .execute()
    }
  }
}
