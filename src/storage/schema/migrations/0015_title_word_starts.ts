import type { Kysely } from 'kysely'
import type { Engine } from '../../contracts/engine.js'
import { BACKFILL_BATCH } from '../online.js'
import { atomically, type MarkedMigration, type SqlTag } from './migration.js'

/**
 * Characters of a title's search form a word-start key holds (`title_word_starts.key`): a longer
 * term is looked up by its first this many (a superset; every book read is checked).
 */
export const WORD_START_KEY_LENGTH = 8

/** The name of the backfill of `title_word_starts` in `online_backfills`. */
export const WORD_STARTS_BACKFILL = 'title_word_starts'

/**
 * Migration 0015 (`0015_title_word_starts`), for `engine`: its compatibility mark, its `up` and
 * its online part.
 *
 * `title_word_starts (key, book_id)` holds, for each book, the text of its title's search form
 * from every place a word may start, cut to {@link WORD_START_KEY_LENGTH} characters: the title's
 * start, and every character after one outside `a-z` and `0-9` (a character beyond ASCII counts as
 * outside, so the places are a superset of the rule's, whose words are runs of letters and digits
 * of any script). So the books where a term starts a title word (the `titleWordStart` rank of
 * docs/search.md "How a page is read") are those of the keys in the term's prefix range, found
 * from the primary key without reading a book. Triggers keep it in the transaction of each write,
 * an older release's and `book-service import`'s included.
 *
 * `online_backfills (name, through_id, done)` says how far a backfill of the online part has come;
 * the search uses `title_word_starts` only once its row is `done`.
 */
export function titleWordStarts(engine: Engine, sql: SqlTag): MarkedMigration {
  return {
    // Older releases may run on it: the triggers keep the new table on their writes too, and they never name it.
    olderReleasesMayRun: true,
    // SQLite: the table, its triggers and the keys of every book, in one transaction (about 20
    // s per million books; writes wait meanwhile). PostgreSQL: the table and its triggers
    // here (a moment's lock on books); the keys of the books already there in the online part.
    async up(db: Kysely<unknown>) {
      await atomically(db, engine, sql, async () => {
        for (const statement of engine === 'sqlite' ? sqliteStatements() : postgresStatements()) await sql.raw(statement).execute(db)
      })
    },
    ...(engine === 'postgres' && { online: (db: Kysely<unknown>) => backfillPostgres(db, sql) })
  }
}

/** The places a word may start in `form` (a search form) as `i` (from 1) of a series `at(i)`: SQL condition, both engines. */
function mayStartWord(form: string, notWordCharacter: (character: string) => string): string {
  return `(at.i = 1 OR ${notWordCharacter(`substr(${form}, at.i - 1, 1)`)})`
}

/**
 * Rows of SQLite's `title_positions` (1, 2, … this): at least the longest title, in characters
 * (docs/contract.md: 500).
 */
const TITLE_POSITIONS = 1000

/** SQLite's statements ({@link titleWordStarts}). */
function sqliteStatements(): string[] {
  // SQLite has no series function: the places of a title come from a table of the numbers 1 to
  // TITLE_POSITIONS (a range of its primary key), a third cheaper per write than a recursive series.
  const keysOf = (form: string) =>
    `SELECT substr(${form}, at.i, ${WORD_START_KEY_LENGTH}) AS key FROM title_positions AS at
     WHERE at.i <= length(${form}) AND ${mayStartWord(form, (character) => `${character} NOT GLOB '[a-z0-9]'`)}`
  const insertKeys = (row: 'new') => `INSERT OR IGNORE INTO title_word_starts (key, book_id) SELECT key, ${row}.id FROM (${keysOf(`${row}.title_search`)});`
  const deleteKeys = (row: 'old') => `DELETE FROM title_word_starts WHERE book_id = ${row}.id AND key IN (${keysOf(`${row}.title_search`)});`
  return [
    'CREATE TABLE title_word_starts (key TEXT NOT NULL, book_id INTEGER NOT NULL, PRIMARY KEY (key, book_id)) WITHOUT ROWID',
    'CREATE TABLE online_backfills (name TEXT PRIMARY KEY, through_id INTEGER NOT NULL, done INTEGER NOT NULL)',
    'CREATE TABLE title_positions (i INTEGER PRIMARY KEY)',
    `INSERT INTO title_positions (i) WITH RECURSIVE at(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM at WHERE i < ${TITLE_POSITIONS}) SELECT i FROM at`,
    `CREATE TRIGGER books_title_word_starts_insert AFTER INSERT ON books BEGIN ${insertKeys('new')} END`,
    `CREATE TRIGGER books_title_word_starts_delete AFTER DELETE ON books BEGIN ${deleteKeys('old')} END`,
    `CREATE TRIGGER books_title_word_starts_update AFTER UPDATE ON books WHEN old.title_search IS NOT new.title_search BEGIN
       ${deleteKeys('old')} ${insertKeys('new')} END`,
    // The books already there: every place of every title, in key order (one pass of the sorter
    // instead of a random insert per key).
    `INSERT OR IGNORE INTO title_word_starts (key, book_id)
     SELECT substr(books.title_search, at.i, ${WORD_START_KEY_LENGTH}) AS key, books.id FROM books
     JOIN title_positions AS at ON at.i <= length(books.title_search)
     WHERE ${mayStartWord('books.title_search', (character) => `${character} NOT GLOB '[a-z0-9]'`)}
     ORDER BY 1, 2`,
    `INSERT INTO online_backfills (name, through_id, done) VALUES ('${WORD_STARTS_BACKFILL}', 0, 1)`
  ]
}

/**
 * PostgreSQL's statements ({@link titleWordStarts}): statement triggers with transition tables, so
 * a group commit's one `INSERT` of many books adds their keys in one statement.
 */
function postgresStatements(): string[] {
  return [
    `CREATE TABLE title_word_starts (key text COLLATE "C" NOT NULL, book_id bigint NOT NULL, PRIMARY KEY (key, book_id))`,
    `CREATE TABLE online_backfills (name text PRIMARY KEY, through_id bigint NOT NULL, done boolean NOT NULL)`,
    `INSERT INTO online_backfills (name, through_id, done) VALUES ('${WORD_STARTS_BACKFILL}', 0, false)`,
    `CREATE FUNCTION title_word_start_keys(form text) RETURNS SETOF text LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
       AS $$ SELECT DISTINCT substr(form, at.i, ${WORD_START_KEY_LENGTH}) FROM generate_series(1, length(form)) AS at(i)
         WHERE ${mayStartWord('form', (character) => `${character} !~ '[a-z0-9]'`)} $$`,
    // Each operation's function sees the rows of the statement as transition tables.
    ...(['insert', 'update', 'delete'] as const).flatMap((operation) => [
      `CREATE FUNCTION books_title_word_starts_${operation}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN ${POSTGRES_TRIGGER_BODIES[operation]} RETURN NULL; END $$`,
      `CREATE TRIGGER books_title_word_starts_${operation} AFTER ${operation.toUpperCase()} ON books
         REFERENCING ${operation === 'delete' ? '' : 'NEW TABLE AS new_books'} ${operation === 'insert' ? '' : 'OLD TABLE AS old_books'}
         FOR EACH STATEMENT EXECUTE FUNCTION books_title_word_starts_${operation}()`
    ])
  ]
}

/** What each of PostgreSQL's statement triggers does with the rows of its statement. */
const POSTGRES_TRIGGER_BODIES = {
  insert: `INSERT INTO title_word_starts (key, book_id)
    SELECT keys.key, new_books.id FROM new_books, title_word_start_keys(new_books.title_search) AS keys(key)
    ON CONFLICT DO NOTHING;`,
  // Only the books whose title's search form changed.
  update: `DELETE FROM title_word_starts AS starts
    USING old_books JOIN new_books ON new_books.id = old_books.id, title_word_start_keys(old_books.title_search) AS keys(key)
    WHERE old_books.title_search IS DISTINCT FROM new_books.title_search AND starts.book_id = old_books.id AND starts.key = keys.key;
  INSERT INTO title_word_starts (key, book_id)
    SELECT keys.key, new_books.id FROM old_books JOIN new_books ON new_books.id = old_books.id, title_word_start_keys(new_books.title_search) AS keys(key)
    WHERE old_books.title_search IS DISTINCT FROM new_books.title_search
    ON CONFLICT DO NOTHING;`,
  delete: `DELETE FROM title_word_starts AS starts
    USING old_books, title_word_start_keys(old_books.title_search) AS keys(key)
    WHERE starts.book_id = old_books.id AND starts.key = keys.key;`
} as const

/**
 * The online part on PostgreSQL: the keys of the books that were there before the triggers, by
 * ranges of {@link BACKFILL_BATCH} ids, each one short transaction (so writers wait at most for one
 * batch); where it has come is kept in `online_backfills`, so an interrupted backfill goes on at
 * the next start. Books written meanwhile get their keys from the triggers (`ON CONFLICT DO
 * NOTHING` where both write one); a title changed while its batch reads it may keep its former
 * keys beside its new ones until its next change (more keys than its places, never fewer: every
 * book read is checked).
 */
async function backfillPostgres(db: Kysely<unknown>, sql: SqlTag): Promise<void> {
  const { rows: progress } = await sql<{ through_id: string; done: boolean }>`
    SELECT through_id, done FROM online_backfills WHERE name = ${WORD_STARTS_BACKFILL}`.execute(db)
  if (progress[0]?.done !== false) return
  const { rows: highest } = await sql<{ last: string | null }>`SELECT max(id) AS last FROM books`.execute(db)
  const last = Number(highest[0]?.last ?? 0)
  for (let through = Number(progress[0].through_id); through < last; ) {
    const next = Math.min(through + BACKFILL_BATCH, last)
    await sql`
      INSERT INTO title_word_starts (key, book_id)
      SELECT keys.key, books.id FROM books, title_word_start_keys(books.title_search) AS keys(key)
      WHERE books.id > ${through} AND books.id <= ${next}
      ON CONFLICT DO NOTHING`.execute(db)
    await sql`UPDATE online_backfills SET through_id = ${next} WHERE name = ${WORD_STARTS_BACKFILL}`.execute(db)
    through = next
  }
  await sql`UPDATE online_backfills SET done = true WHERE name = ${WORD_STARTS_BACKFILL}`.execute(db)
}
