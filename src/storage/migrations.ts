import type { Kysely, Migration, MigrationProvider } from 'kysely'
import { Migrator } from 'kysely'

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

/**
 * Applies every pending migration (versioned in the `kysely_migration` table). Safe when several
 * instances start at once: on PostgreSQL Kysely holds an advisory lock while it migrates.
 *
 * @returns the names of the migrations applied by this call (empty when up to date).
 * @throws the migration's error when one fails (that migration is rolled back).
 */
export async function migrateToLatest(db: Kysely<unknown>, engine: Engine): Promise<string[]> {
  const provider: MigrationProvider = { getMigrations: async () => migrations(engine) }
  const { error, results } = await new Migrator({ db, provider }).migrateToLatest()
  if (error) throw error
  return (results ?? []).filter((result) => result.status === 'Success').map((result) => result.migrationName)
}
