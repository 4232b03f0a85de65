import type { Kysely } from 'kysely'
import { BASE_LETTERS, DIACRITIC_LETTERS } from '../../../book/search.js'
import type { Engine } from '../../contracts/engine.js'
import { atomically, type MarkedMigration, type SqlTag } from './migration.js'

/** Migration 0009 (`0009_search_index`), for `engine`: its compatibility mark and its `up`. */
export function searchIndex(engine: Engine, sql: SqlTag): MarkedMigration {
  return {
    // Older releases may run on it: on SQLite their writes fire the same triggers, on
    // PostgreSQL the indexes are on expressions of the columns they already write.
    olderReleasesMayRun: true,
    // The search index of `GET /books?q=…` (docs/search.md "Search"; `searchStatement` in storage/sql/list.ts).
    async up(db: Kysely<unknown>) {
      await atomically(db, engine, sql, async () => {
        for (const statement of searchIndexStatements(engine)) await sql.raw(statement).execute(db)
      })
    }
  }
}

/**
 * Migration 0009's statements.
 *
 * SQLite: `book_search`, an FTS5 table with the trigram tokenizer (case and the diacritics of
 * `DIACRITIC_LETTERS` ignored), external content `books` (it stores the index only), indexing
 * `title_folded` and `author_folded`; triggers keep it in step with every insert, update of the
 * folded columns and delete, in the writing transaction; `rebuild` indexes the books already there.
 *
 * PostgreSQL: `book_search_key(text)`, the search form of a folded text (`withoutDiacritics`,
 * src/book/search.ts: `translate` with the same letters), the stored generated columns
 * `title_search` and `author_search` (it, of the folded columns), and, when pg_trgm is installed
 * (0002 installs it when it can), GIN trigram indexes on them. Without pg_trgm a search scans
 * (same answers).
 */
function searchIndexStatements(engine: Engine): string[] {
  if (engine === 'sqlite') {
    return [
      `CREATE VIRTUAL TABLE book_search USING fts5(title_folded, author_folded, content='books', content_rowid='id',
         tokenize='trigram remove_diacritics 1')`,
      `CREATE TRIGGER book_search_insert AFTER INSERT ON books BEGIN
         INSERT INTO book_search(rowid, title_folded, author_folded) VALUES (new.id, new.title_folded, new.author_folded);
       END`,
      `CREATE TRIGGER book_search_delete AFTER DELETE ON books BEGIN
         INSERT INTO book_search(book_search, rowid, title_folded, author_folded) VALUES ('delete', old.id, old.title_folded, old.author_folded);
       END`,
      `CREATE TRIGGER book_search_update AFTER UPDATE OF title_folded, author_folded ON books
         WHEN old.title_folded IS NOT new.title_folded OR old.author_folded IS NOT new.author_folded BEGIN
         INSERT INTO book_search(book_search, rowid, title_folded, author_folded) VALUES ('delete', old.id, old.title_folded, old.author_folded);
         INSERT INTO book_search(rowid, title_folded, author_folded) VALUES (new.id, new.title_folded, new.author_folded);
       END`,
      `INSERT INTO book_search(book_search) VALUES ('rebuild')`
    ]
  }
  const literal = (text: string) => `'${text.replaceAll("'", "''")}'`
  return [
    // A text without any letter beyond ASCII is its own search form: translate (slow with 245 letters) is skipped.
    `CREATE FUNCTION book_search_key(folded text) RETURNS text LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
       AS $$ SELECT CASE WHEN folded ~ '^[\\x01-\\x7f]*$' THEN folded
         ELSE translate(folded, ${literal(DIACRITIC_LETTERS)}, ${literal(BASE_LETTERS)}) END $$`,
    // Stored, so a search reads the search forms instead of computing them for every candidate; PostgreSQL
    // computes them on every write, an older release's included.
    `ALTER TABLE books
       ADD COLUMN title_search text COLLATE "C" GENERATED ALWAYS AS (book_search_key(title_folded)) STORED,
       ADD COLUMN author_search text COLLATE "C" GENERATED ALWAYS AS (book_search_key(author_folded)) STORED`,
    `DO $$ BEGIN
       IF EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'pg_trgm') THEN
         CREATE INDEX books_title_search_trgm ON books USING gin (title_search gin_trgm_ops);
         CREATE INDEX books_author_search_trgm ON books USING gin (author_search gin_trgm_ops);
       ELSE
         RAISE WARNING 'pg_trgm not installed: GET /books?q= will scan (docs/search.md "Search")';
       END IF;
     END $$`
  ]
}
