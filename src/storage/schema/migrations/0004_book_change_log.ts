import type { Kysely } from 'kysely'
import type { Engine } from '../../contracts/engine.js'
import type { MarkedMigration, SqlTag } from './migration.js'

/** Migration 0004 (`0004_book_change_log`), for `engine`: its compatibility mark and its `up`. */
export function bookChangeLog(engine: Engine, sql: SqlTag): MarkedMigration {
  return {
    // Older releases may run on it: their writes fire the same triggers, so the log stays whole.
    olderReleasesMayRun: true,
    // The change log (docs/change-feed.md "Change log"; src/storage/contracts/change-log.ts): one row per committed
    // create, update and delete, written by triggers on `books`, so in the same transaction as
    // the change. Books stored before this migration have no history: the log starts here.
    async up(db: Kysely<unknown>) {
      for (const statement of changeLogStatements(engine)) await sql.raw(statement).execute(db)
    }
  }
}

/** The PostgreSQL advisory lock key ("bookchng" in ASCII) of migration 0004's numbering (0007 replaces it). */
export const CHANGE_LOG_LOCK = 0x626f6f6b63686e67n

/**
 * Migration 0004's statements. The log's rows (`book_changes`) carry the book as it is after the
 * change (null columns for a delete), its version and the commit time as ISO 8601 UTC text;
 * `book_change_horizon` holds the highest sequence number retention removed.
 *
 * SQLite: `AUTOINCREMENT` numbers the rows and never reuses a number; SQLite has one writer at a
 * time, so the numbers follow commit order.
 *
 * PostgreSQL: a sequence alone would hand numbers out of commit order (a transaction that drew 7
 * may commit after one that drew 8, and a reader past 8 would never see 7). The rows are therefore
 * written by a deferred trigger, at commit, while the transaction holds the advisory lock
 * {@link CHANGE_LOG_LOCK} until its end: no other transaction draws a number until this one has
 * committed (or rolled back), so numbers follow commit order. `pg_notify('book_changes')` wakes
 * the readers of every instance (docs/change-feed.md "Change log").
 */
function changeLogStatements(engine: Engine): string[] {
  const table = (seq: string, id: string) => `CREATE TABLE book_changes (
    seq ${seq}, book_id ${id} NOT NULL, operation text NOT NULL, version integer NOT NULL,
    title text, author text, year integer, changed_at text NOT NULL)`
  const horizon = [
    'CREATE TABLE book_change_horizon (trimmed_through bigint NOT NULL)',
    'INSERT INTO book_change_horizon (trimmed_through) VALUES (0)'
  ]
  if (engine === 'sqlite') {
    const now = "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')"
    const row = (operation: string, book: string) => `INSERT INTO book_changes
      (book_id, operation, version, title, author, year, changed_at)
      VALUES (${book}.id, '${operation}', ${book}.version, ${operation === 'deleted' ? 'NULL, NULL, NULL' : `${book}.title, ${book}.author, ${book}.year`}, ${now});`
    return [
      table('INTEGER PRIMARY KEY AUTOINCREMENT', 'INTEGER'),
      ...horizon,
      `CREATE TRIGGER book_changes_created AFTER INSERT ON books BEGIN ${row('created', 'NEW')} END`,
      `CREATE TRIGGER book_changes_updated AFTER UPDATE ON books BEGIN ${row('updated', 'NEW')} END`,
      `CREATE TRIGGER book_changes_deleted AFTER DELETE ON books BEGIN ${row('deleted', 'OLD')} END`
    ]
  }
  const now = `to_char(clock_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`
  return [
    'CREATE SEQUENCE book_changes_seq AS bigint',
    table('bigint PRIMARY KEY', 'bigint'),
    ...horizon,
    `CREATE FUNCTION book_changes_log() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM pg_advisory_xact_lock(${CHANGE_LOG_LOCK});
      IF TG_OP = 'DELETE' THEN
        INSERT INTO book_changes VALUES (nextval('book_changes_seq'), OLD.id, 'deleted', OLD.version, NULL, NULL, NULL, ${now});
      ELSE
        INSERT INTO book_changes VALUES (nextval('book_changes_seq'), NEW.id,
          CASE TG_OP WHEN 'INSERT' THEN 'created' ELSE 'updated' END, NEW.version, NEW.title, NEW.author, NEW.year, ${now});
      END IF;
      PERFORM pg_notify('book_changes', '');
      RETURN NULL;
    END $$`,
    `CREATE CONSTRAINT TRIGGER book_changes_log AFTER INSERT OR UPDATE OR DELETE ON books
      DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION book_changes_log()`
  ]
}
