import type { Kysely, sql as Sql } from 'kysely'

/** Kysely's `sql` template tag, passed in so Kysely is loaded only when something is migrated. */
type SqlTag = typeof Sql

/**
 * Rolling upgrades and rollbacks (docs/several-instances.md "Rolling upgrades"): how a release knows whether it may
 * run on a database that a newer release has migrated further than it knows.
 *
 * Every release records, before it migrates, a mark for each migration it knows in the table
 * `schema_compatibility` (`migration`, `older_releases_may_run`: 1 or 0): whether a release that
 * does not know that migration may keep running on the database once it is applied (1: additive,
 * such as a new table or a nullable column that older code never touches; 0: older code would
 * misbehave). A release that finds applied migrations it does not know starts when each of them is
 * marked 1, and refuses with one line otherwise (an unmarked one counts as 0). The table is made
 * like Kysely's own history tables, outside the numbered migrations, on both engines.
 */

/** One line naming the migrations this release may not run after; start-up ends with it. */
export class SchemaAheadError extends Error {
  override name = 'SchemaAheadError'
}

/** An advisory lock key ("schemacmp" in ASCII) so instances of PostgreSQL starting together record the marks one at a time. */
const RECORD_LOCK = 0x736368656d61636dn

/**
 * Creates `schema_compatibility` when missing and records `marks` (migration name → older
 * releases may run) for the migrations not recorded yet; a recorded mark is never changed (the
 * release that added the migration decided it).
 */
export async function recordCompatibility(db: Kysely<unknown>, engine: 'sqlite' | 'postgres', sql: SqlTag, marks: Record<string, boolean>): Promise<void> {
  await db.transaction().execute(async (trx) => {
    if (engine === 'postgres') await sql`SELECT pg_advisory_xact_lock(${RECORD_LOCK.toString()}::bigint)`.execute(trx)
    await sql`CREATE TABLE IF NOT EXISTS schema_compatibility (
      migration varchar(255) NOT NULL PRIMARY KEY, older_releases_may_run integer NOT NULL)`.execute(trx)
    for (const [migration, mayRun] of Object.entries(marks)) {
      await sql`INSERT INTO schema_compatibility (migration, older_releases_may_run) VALUES (${migration}, ${mayRun ? 1 : 0})
        ON CONFLICT (migration) DO NOTHING`.execute(trx)
    }
  })
}

/** The names recorded in Kysely's history table (none when it does not exist yet). */
export async function executedMigrations(db: Kysely<unknown>, sql: SqlTag): Promise<string[]> {
  const tables = await db.introspection.getTables({ withInternalKyselyTables: true })
  if (!tables.some((table) => table.name === 'kysely_migration')) return []
  const { rows } = await sql<{ name: string }>`SELECT name FROM kysely_migration`.execute(db)
  return rows.map((row) => row.name)
}

/**
 * Checks that this release may run on a database where `unknown` (migrations it does not know,
 * applied by a newer release) are applied: each must be marked additive in `schema_compatibility`.
 *
 * @throws {SchemaAheadError} naming those that are not.
 */
export async function assertOlderReleaseMayRun(db: Kysely<unknown>, sql: SqlTag, unknown: readonly string[]): Promise<void> {
  if (unknown.length === 0) return
  const { rows } = await sql<{ migration: string; older_releases_may_run: number }>`
    SELECT migration, older_releases_may_run FROM schema_compatibility`.execute(db)
  const additive = new Set(rows.filter((row) => Number(row.older_releases_may_run) === 1).map((row) => row.migration))
  const refused = unknown.filter((name) => !additive.has(name)).sort()
  if (refused.length > 0) {
    throw new SchemaAheadError(
      `the database was migrated by a newer release (${refused.join(', ')}) that this release may not run on; ` +
        'run the newer release, or restore a backup taken before that migration'
    )
  }
}
