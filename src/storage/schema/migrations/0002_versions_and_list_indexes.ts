import type { Kysely } from 'kysely'
import { foldText } from '../../../book/fold.js'
import type { Engine } from '../../contracts/engine.js'
import type { MarkedMigration, SqlTag } from './migration.js'

/** Migration 0002 (`0002_versions_and_list_indexes`), for `engine`: its compatibility mark and its `up`. */
export function versionsAndListIndexes(engine: Engine, sql: SqlTag): MarkedMigration {
  return {
    // Paging, filters and ETags (docs/api.md "Large collections and concurrent edits"): a version per book (its ETag; every update increments it), the folded title and
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
