import type { Kysely } from 'kysely'
import type { Engine } from '../../contracts/engine.js'
import { atomically, type MarkedMigration, type SqlTag } from './migration.js'

/** Migration 0008 (`0008_change_history`), for `engine`: its compatibility mark and its `up`. */
export function changeHistory(engine: Engine, sql: SqlTag): MarkedMigration {
  return {
    // Older releases may run on it: they never read the new column, and their writes leave it null.
    olderReleasesMayRun: true,
    // A book's history (README "History and restore"; src/storage/sql/book-history-statements.ts): the change
    // context's `restoredFrom` (the version a restore brought back, null for every other change)
    // and the index that makes a book's history, newest first, a range read of that book's rows
    // however long the log.
    async up(db: Kysely<unknown>) {
      await atomically(db, engine, sql, async () => {
        for (const statement of historyStatements(engine)) await sql.raw(statement).execute(db)
      })
    }
  }
}

/**
 * Migration 0008's statements: the column of the change context's `restoredFrom` (`ChangeContext`
 * in contracts/change-log.ts, `CHANGE_CONTEXT_COLUMNS` in sql/change-log-statements.ts) and the index of a book's
 * history: `(book_id, seq)` on SQLite, `(book_id, change_id)` on PostgreSQL.
 *
 * On PostgreSQL the column is filled from the writing transaction's `book_service.change_context`
 * like the other context fields, by a trigger of its own on `book_changes` (before each row is
 * inserted, whichever trigger of `books` inserts it), so it does not depend on the body of the
 * function that writes the rows. A restore is never part of a group insert, so a context that is
 * an array (one object per row) leaves it null. SQLite's writer stamps it with the other fields.
 */
function historyStatements(engine: Engine): string[] {
  const column = 'ALTER TABLE book_changes ADD COLUMN restored_from integer NULL'
  // A book's history in change order: `seq` on SQLite; on PostgreSQL `change_id` (migration 0007),
  // there as soon as the change commits, before the sequencer numbers it (sql/book-history-statements.ts).
  if (engine === 'sqlite') return [column, 'CREATE INDEX book_changes_book_seq ON book_changes (book_id, seq)']
  return [
    column,
    'CREATE INDEX book_changes_book_change ON book_changes (book_id, change_id)',
    `CREATE FUNCTION book_changes_restored_from() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
      context jsonb := nullif(current_setting('book_service.change_context', true), '')::jsonb;
    BEGIN
      IF jsonb_typeof(context) = 'object' THEN
        NEW.restored_from := (context ->> 'restored_from')::integer;
      END IF;
      RETURN NEW;
    END $$`,
    `CREATE TRIGGER book_changes_restored_from BEFORE INSERT ON book_changes
      FOR EACH ROW EXECUTE FUNCTION book_changes_restored_from()`
  ]
}
