import type { Kysely } from 'kysely'
import type { Engine } from '../../contracts/engine.js'
import { atomically, type MarkedMigration, type SqlTag } from './migration.js'

/** Migration 0005 (`0005_idempotency_keys`), for `engine`: its compatibility mark and its `up`. */
export function idempotencyKeys(engine: Engine, sql: SqlTag): MarkedMigration {
  return {
    olderReleasesMayRun: true,
    // The first answer of each `Idempotency-Key` on POST /book (docs/api.md "Retries and
    // Idempotency-Key"), written in the same transaction as the book it created. `subject` is the
    // token's `sub` claim as JSON text (any claim value is stored unchanged on both engines);
    // `fingerprint` the SHA-256 of the book the body described; `created_at` ISO 8601 UTC text.
    async up(db: Kysely<unknown>) {
      await atomically(db, engine, sql, () => createIdempotencyKeys(db, engine))
    }
  }
}

/** Migration 0005: the table of `Idempotency-Key` answers, and the index its expiry trims by. */
async function createIdempotencyKeys(db: Kysely<unknown>, engine: Engine): Promise<void> {
  await db.schema
    .createTable('idempotency_keys')
    .addColumn('subject', 'text', (column) => column.notNull())
    .addColumn('idempotency_key', 'text', (column) => column.notNull())
    .addColumn('fingerprint', 'text', (column) => column.notNull())
    .addColumn('status', 'integer', (column) => column.notNull())
    .addColumn('book_id', engine === 'postgres' ? 'bigint' : 'integer', (column) => column.notNull())
    .addColumn('response', 'text', (column) => column.notNull())
    .addColumn('created_at', 'text', (column) => column.notNull())
    .addPrimaryKeyConstraint('idempotency_keys_pkey', ['subject', 'idempotency_key'])
    .execute()
  await db.schema.createIndex('idempotency_keys_created_at').on('idempotency_keys').column('created_at').execute()
}
