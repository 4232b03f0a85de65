import type { Kysely, Migration, sql as Sql } from 'kysely'
import type { Engine } from '../../contracts/engine.js'

/** Kysely's `sql` template tag, passed in so Kysely is loaded only when something is migrated. */
export type SqlTag = typeof Sql

/**
 * A migration and its compatibility mark (schema/compatibility.ts): `olderReleasesMayRun: true`
 * when releases that do not know it may keep running on the database once it is applied (it only
 * adds what older code never touches); absent means they may not.
 *
 * `online` (PostgreSQL only) is the part that must not run in a transaction or hold a lock that
 * stops reads and writes: `CREATE INDEX CONCURRENTLY`, backfills in batches (schema/online.ts).
 * The migrator runs it after the transactional `up`s, one instance at a time, at every start
 * until it is done, so it must be idempotent and cheap once done (docs/operations.md
 * "Migrations while other instances serve"). The code must not depend on what it builds being
 * there yet (an index only makes reads faster; a backfilled column is read with its fallback).
 */
export type MarkedMigration = Migration & { olderReleasesMayRun?: true; online?: (db: Kysely<unknown>) => Promise<void> }

/** One migration of the history: built for an engine, with Kysely's `sql` tag. */
export type MigrationOf = (engine: Engine, sql: SqlTag) => MarkedMigration

/**
 * Runs `work` so that it applies entirely or not at all: on PostgreSQL the migrator already runs
 * each migration in one transaction; on SQLite (DDL is transactional there too) it is wrapped here.
 */
export async function atomically(db: Kysely<unknown>, engine: Engine, sql: SqlTag, work: () => Promise<void>): Promise<void> {
  if (engine === 'postgres') return work()
  await sql`BEGIN IMMEDIATE`.execute(db)
  try {
    await work()
    await sql`COMMIT`.execute(db)
  } catch (error) {
    await sql`ROLLBACK`.execute(db)
    throw error
  }
}
