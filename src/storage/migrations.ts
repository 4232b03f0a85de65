import type { Kysely, Migration, MigrationProvider } from 'kysely'

/** The storage engines the migrations know. */
export type Engine = 'sqlite' | 'postgres'

/**
 * The one migration history of both engines, in order (names sort in application order).
 * A migration is never edited once released: add a new one instead.
 */
function migrations(engine: Engine): Record<string, Migration> {
  return {
    '0001_create_books': {
      async up(db: Kysely<unknown>) {
        await db.schema
          .createTable('books')
          .addColumn('id', engine === 'postgres' ? 'bigint' : 'integer', (column) =>
            engine === 'postgres'
              ? column.primaryKey().generatedAlwaysAsIdentity()
              : column.primaryKey().autoIncrement()
          )
          .addColumn('title', 'text', (column) => column.notNull())
          .addColumn('author', 'text', (column) => column.notNull())
          .addColumn('year', 'integer', (column) => column.notNull())
          .execute()
      }
    }
  }
}

/** The names of every migration, in order (the same for both engines). */
export const MIGRATION_NAMES: readonly string[] = Object.keys(migrations('sqlite')).sort()

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
 * @returns the names of the migrations applied by this call (empty when up to date).
 * @throws the migration's error when one fails (that migration is rolled back).
 */
export async function migrateToLatest(db: Kysely<unknown>, engine: Engine): Promise<string[]> {
  const { Migrator } = await import('kysely')
  const provider: MigrationProvider = { getMigrations: async () => migrations(engine) }
  const { error, results } = await new Migrator({ db, provider }).migrateToLatest()
  if (error) throw error
  return (results ?? []).filter((result) => result.status === 'Success').map((result) => result.migrationName)
}
