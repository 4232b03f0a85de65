import type { Kysely } from 'kysely'
import type { SqlTag } from './migrations/migration.js'

/*
 * Online schema changes on PostgreSQL (docs/operations.md "Migrations while other instances
 * serve"): what a migration's `online` part (migrations/migration.ts) uses so that a database of
 * millions of rows is changed without a lock that stops reads or writes. The migrator runs those
 * parts outside any transaction, one instance at a time, at every start until they are done, so
 * each must be idempotent: an index is created when missing, a backfill only touches rows still
 * to do. SQLite needs none of this (one writer; its migrations stay in one transaction).
 */

/** An index a migration adds while the table keeps taking reads and writes. */
export interface OnlineIndex {
  /** The index's name (unique in the schema). */
  name: string
  /** The table, e.g. `webhook_deliveries`. */
  table: string
  /** What follows `ON table`: the columns and options, e.g. `(endpoint_id, status, seq)`. */
  columns: string
}

/**
 * Creates `index` with `CREATE INDEX CONCURRENTLY` (reads and writes go on while it is built;
 * it waits for the transactions already running on the table, never blocks them). A valid index
 * of that name is left alone; an invalid one (a build that was interrupted: a crash, a cancel)
 * is dropped concurrently and built again. Must run outside a transaction.
 *
 * @throws the database's error when the build fails (the index is then left invalid, and the next
 *   start builds it again).
 */
export async function createIndexConcurrently(db: Kysely<unknown>, sql: SqlTag, index: OnlineIndex): Promise<void> {
  const { rows } = await sql<{ valid: boolean }>`
    SELECT i.indisvalid AS valid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
    WHERE c.relname = ${index.name} AND c.relnamespace = current_schema()::regnamespace`.execute(db)
  if (rows[0]?.valid === true) return
  if (rows[0] !== undefined) await sql.raw(`DROP INDEX CONCURRENTLY IF EXISTS ${index.name}`).execute(db)
  await sql.raw(`CREATE INDEX CONCURRENTLY IF NOT EXISTS ${index.name} ON ${index.table} ${index.columns}`).execute(db)
}

/** Rows a backfill changes per statement by default: each is its own short transaction. */
export const BACKFILL_BATCH = 1000

/**
 * Runs `batch(size)` again and again, each statement its own transaction (so row locks are held
 * for one batch only, and writers wait at most that long), until a batch changes fewer than
 * `size` rows. `batch` must touch only rows still to do (e.g. `WHERE column IS NULL … LIMIT
 * size`), so a backfill that is interrupted goes on where it stopped at the next start.
 *
 * @returns the rows changed in all.
 */
export async function backfillInBatches(
  db: Kysely<unknown>,
  batch: (size: number) => { execute(db: Kysely<unknown>): Promise<{ numAffectedRows?: bigint }> },
  size = BACKFILL_BATCH
): Promise<number> {
  for (let total = 0; ; ) {
    const changed = Number((await batch(size).execute(db)).numAffectedRows ?? 0n)
    total += changed
    if (changed < size) return total
  }
}
