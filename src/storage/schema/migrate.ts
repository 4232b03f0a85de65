import type { Kysely, MigrationProvider } from 'kysely'
import type { Engine } from '../contracts/engine.js'
import { assertOlderReleaseMayRun, executedMigrations, recordCompatibility } from './compatibility.js'
import { MIGRATIONS } from './migrations/index.js'
import type { MarkedMigration, SqlTag } from './migrations/migration.js'

/** The names of every migration, in order (the same for both engines). */
export const MIGRATION_NAMES: readonly string[] = Object.keys(MIGRATIONS).sort()

/**
 * True when `applied` (the names recorded in `kysely_migration`) is exactly
 * {@link MIGRATION_NAMES}: nothing to do, and Kysely need not even be loaded (a faster start).
 * Anything else, including names this version does not know, goes through the Migrator.
 */
export function isUpToDate(applied: readonly string[]): boolean {
  const sorted = [...applied].sort()
  return sorted.length === MIGRATION_NAMES.length && sorted.every((name, index) => name === MIGRATION_NAMES[index])
}

/**
 * Applies every pending migration (versioned in the `kysely_migration` table). Safe when several
 * instances start at once: on PostgreSQL Kysely holds an advisory lock while it migrates.
 *
 * First it records the compatibility mark of each migration it knows (schema/compatibility.ts).
 * Migrations applied by a newer release that this one does not know are accepted when each is
 * marked additive (given to Kysely as already applied, so its history check passes), and refused
 * otherwise.
 *
 * @returns the names of the migrations applied by this call (empty when up to date).
 * @throws {SchemaAheadError} when a newer release applied a migration this one may not run after.
 * @throws the migration's error when one fails (that migration is rolled back).
 */
export async function migrateToLatest(db: Kysely<unknown>, engine: Engine): Promise<string[]> {
  const { Migrator, sql } = await import('kysely')
  const known = Object.fromEntries(Object.entries(MIGRATIONS).map(([name, migration]) => [name, migration(engine, sql)]))
  await recordCompatibility(db, engine, sql, Object.fromEntries(Object.entries(known).map(([name, migration]) => [name, migration.olderReleasesMayRun === true])))
  for (let attempt = 1; ; attempt++) {
    const unknown = (await executedMigrations(db, sql)).filter((name) => !Object.hasOwn(known, name))
    await assertOlderReleaseMayRun(db, sql, unknown)
    const applied = Object.fromEntries(unknown.map((name) => [name, { up: async () => {} }]))
    const provider: MigrationProvider = { getMigrations: async () => ({ ...known, ...applied }) }
    const { error, results } = await new Migrator({ db, provider, allowUnorderedMigrations: true }).migrateToLatest()
    // Another instance of a newer release applied a migration since the history was read: read it again.
    if (error && attempt === 1 && /previously executed migration .* is missing/.test(String(error))) continue
    if (error) throw error
    if (engine === 'postgres') await runOnlineParts(db, sql, Object.values(known))
    return (results ?? []).filter((result) => result.status === 'Success').map((result) => result.migrationName)
  }
}

/** An advisory lock key ("schemaon" in ASCII) so one instance at a time runs the online parts. */
const ONLINE_LOCK = 0x736368656d616f6en
/** How often an instance asks for {@link ONLINE_LOCK} again while another holds it, in ms. */
const ONLINE_LOCK_POLL_MS = 250

/**
 * Runs the `online` part of each migration (migrations/migration.ts), in order, on one
 * connection outside any transaction, holding {@link ONLINE_LOCK}. The lock is asked for with
 * `pg_try_advisory_lock` and polled, never waited for inside a statement: a waiting statement
 * holds a snapshot, which a `CREATE INDEX CONCURRENTLY` of the instance holding the lock would
 * wait for in turn.
 *
 * @throws the database's error when an online part fails (the next start runs it again).
 */
async function runOnlineParts(db: Kysely<unknown>, sql: SqlTag, migrations: readonly MarkedMigration[]): Promise<void> {
  const parts = migrations.flatMap((migration) => (migration.online ? [migration.online] : []))
  if (parts.length === 0) return
  await db.connection().execute(async (connection) => {
    const key = ONLINE_LOCK.toString()
    while (!(await sql<{ held: boolean }>`SELECT pg_try_advisory_lock(${key}::bigint) AS held`.execute(connection)).rows[0]!.held) {
      await new Promise((resolve) => setTimeout(resolve, ONLINE_LOCK_POLL_MS))
    }
    try {
      for (const part of parts) await part(connection)
    } finally {
      await sql`SELECT pg_advisory_unlock(${key}::bigint)`.execute(connection)
    }
  })
}
