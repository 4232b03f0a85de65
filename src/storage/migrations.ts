import type { Kysely, Migration, MigrationProvider, sql as Sql } from 'kysely'
import { foldText } from '../book/fold.js'
import type { Engine } from './engine.js'

/** Kysely's `sql` template tag, passed in so Kysely is loaded only when something is migrated. */
type SqlTag = typeof Sql

/**
 * The one migration history of both engines, in order (names sort in application order).
 * A migration is never edited once released: add a new one instead.
 */
function migrations(engine: Engine, sql: SqlTag): Record<string, Migration> {
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
    },
    '0002_versions_and_list_indexes': {
      // Paging, filters and ETags (README "Large collections and concurrent edits"): a version per book (its ETag; every update increments it), the folded title and
      // author (case-insensitive filters and sorts, same on both engines), and the indexes that
      // keep each filter and sort O(page) at 1,000,000 books.
      async up(db: Kysely<unknown>) {
        if (engine === 'sqlite') await sql`BEGIN IMMEDIATE`.execute(db)
        try {
          await addVersionsAndIndexes(db, engine, sql)
          if (engine === 'sqlite') await sql`COMMIT`.execute(db)
        } catch (error) {
          if (engine === 'sqlite') await sql`ROLLBACK`.execute(db)
          throw error
        }
      }
    },
    '0003_accounts': {
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
    },
    '0006_login_attempts': {
      // The login limits' counters (storage/login-attempts.ts), shared by every process on the
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
}

/** Rows folded per batch when 0002 fills the folded columns of existing books. */
const FOLD_BATCH = 1000

/**
 * Migration 0002. On PostgreSQL the migrator already runs it in one transaction; on SQLite the
 * caller wraps it in one (SQLite DDL is transactional too), so it applies entirely or not at all.
 */
async function addVersionsAndIndexes(db: Kysely<unknown>, engine: Engine, sql: SqlTag): Promise<void> {
  // The folded columns use the byte-order "C" collation on PostgreSQL: the same order as SQLite's
  // BINARY, and LIKE on them can use the pg_trgm indexes whatever the database's locale.
  const folded = engine === 'postgres' ? sql`text COLLATE "C" NOT NULL DEFAULT ''` : sql`TEXT NOT NULL DEFAULT ''`
  await sql`ALTER TABLE books ADD COLUMN version INTEGER NOT NULL DEFAULT 1`.execute(db)
  await sql`ALTER TABLE books ADD COLUMN title_folded ${folded}`.execute(db)
  await sql`ALTER TABLE books ADD COLUMN author_folded ${folded}`.execute(db)

  // Existing books get their folded forms from the same function new writes use.
  for (let after = 0; ; ) {
    const { rows } = await sql<{ id: number; title: string; author: string }>`
      SELECT id, title, author FROM books WHERE id > ${after} ORDER BY id LIMIT ${FOLD_BATCH}`.execute(db)
    for (const row of rows) {
      await sql`UPDATE books SET title_folded = ${foldText(row.title)}, author_folded = ${foldText(row.author)}
        WHERE id = ${row.id}`.execute(db)
    }
    if (rows.length < FOLD_BATCH) break
    after = Number(rows[rows.length - 1]!.id)
  }

  await sql`CREATE INDEX books_title_folded_id ON books (title_folded, id)`.execute(db)
  await sql`CREATE INDEX books_author_folded_id ON books (author_folded, id)`.execute(db)
  await sql`CREATE INDEX books_year_id ON books (year, id)`.execute(db)

  if (engine === 'postgres') {
    // Substring filters (LIKE '%term%') use trigram indexes when pg_trgm can be installed (it is
    // a trusted extension: the database owner may create it). Without it they scan.
    await sql`DO $$ BEGIN
        CREATE EXTENSION IF NOT EXISTS pg_trgm;
      EXCEPTION WHEN OTHERS THEN
        RAISE WARNING 'pg_trgm not installed (%): title/author filters will scan', SQLERRM;
      END $$`.execute(db)
    await sql`DO $$ BEGIN
        IF EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'pg_trgm') THEN
          CREATE INDEX books_title_folded_trgm ON books USING gin (title_folded gin_trgm_ops);
          CREATE INDEX books_author_folded_trgm ON books USING gin (author_folded gin_trgm_ops);
        END IF;
      END $$`.execute(db)
  }
}

/** The names of every migration, in order (the same for both engines). */
export const MIGRATION_NAMES: readonly string[] = Object.keys(
  migrations('sqlite', undefined as unknown as SqlTag) // only the names: no migration runs here
).sort()

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
  const { Migrator, sql } = await import('kysely')
  const provider: MigrationProvider = { getMigrations: async () => migrations(engine, sql) }
  const { error, results } = await new Migrator({ db, provider }).migrateToLatest()
  if (error) throw error
  return (results ?? []).filter((result) => result.status === 'Success').map((result) => result.migrationName)
}
