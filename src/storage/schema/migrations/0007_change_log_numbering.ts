import type { Kysely } from 'kysely'
import type { Engine } from '../../contracts/engine.js'
import { atomically, type MarkedMigration, type SqlTag } from './migration.js'

/** Migration 0007 (`0007_change_log_numbering`), for `engine`: its compatibility mark and its `up`. */
export function changeLogNumbering(engine: Engine, sql: SqlTag): MarkedMigration {
  return {
    // Not marked: an older release's writes would still be logged (the same trigger), but
    // numbered only while an instance of this release runs the sequencer; an older release
    // alone (a rollback) would leave its feed waiting for numbers that never come.
    // Each change-log row records who made it and the request that did (docs/change-feed.md "Change log";
    // `ChangeContext` in src/storage/contracts/change-log.ts): null for the writes of other programs. On
    // PostgreSQL the rows are numbered after commit by one sequencer, without a lock or NOTIFY
    // in the writing transactions (changeLogNumbering below).
    async up(db: Kysely<unknown>) {
      await atomically(db, engine, sql, async () => {
        for (const statement of numberingStatements(engine)) await sql.raw(statement).execute(db)
      })
    }
  }
}

/** The PostgreSQL session-level advisory lock key ("bookseqn" in ASCII) its holder numbers the change log under. */
export const CHANGE_NUMBERING_LOCK = 0x626f6f6b7365716en

/**
 * Migration 0007's statements. Both engines: the context columns of `book_changes`
 * (`CHANGE_CONTEXT_COLUMNS` in sql/change-log-statements.ts, `ChangeContext` in contracts/change-log.ts). SQLite keeps
 * its numbering (AUTOINCREMENT, one writer at a time).
 *
 * PostgreSQL numbers the log after commit, with no step every writer takes in turn (README
 * "Change log"):
 * - an ordinary `AFTER … FOR EACH ROW` trigger (no lock, no NOTIFY, not deferred) writes the row
 *   in the writing transaction, unnumbered (`seq` null), with `change_id` (drawn from a sequence
 *   at the write: a later write of the same book, which waited for the earlier one's row lock,
 *   draws a larger one), `xid` (`pg_current_xact_id()`, the writing transaction) and the context
 *   the transaction set in `book_service.change_context`;
 * - `book_changes_number(batch)`, called by one sequencer per database (the holder of the
 *   session-level advisory lock {@link CHANGE_NUMBERING_LOCK}: storage/postgres/postgres-change-numbering.ts),
 *   gives the committed unnumbered rows it can see, in `change_id` order, the numbers after
 *   `book_change_horizon.numbered_through` and moves that on, in one transaction, then notifies
 *   `book_changes` once. A row is visible only once its transaction committed, a rolled-back one
 *   never, and the batches are numbered one after another (the counter's row lock), each committed
 *   before the next is read; so the numbers are contiguous, readers see them as a growing prefix,
 *   and a number once seen is never followed by a smaller one. The counter is a row, not a
 *   sequence: a batch rolled back returns its numbers, and `pg_dump` carries it with the data.
 */
function numberingStatements(engine: Engine): string[] {
  const columns = ['ALTER TABLE book_changes ADD COLUMN actor text NULL', 'ALTER TABLE book_changes ADD COLUMN request_id text NULL']
  if (engine === 'sqlite') return columns
  const now = `to_char(clock_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`
  return [
    ...columns,
    'ALTER TABLE book_changes ADD COLUMN change_id bigint GENERATED ALWAYS AS IDENTITY',
    'ALTER TABLE book_changes ADD COLUMN xid xid8',
    'ALTER TABLE book_changes DROP CONSTRAINT book_changes_pkey',
    'ALTER TABLE book_changes ALTER COLUMN seq DROP NOT NULL',
    'ALTER TABLE book_changes ADD CONSTRAINT book_changes_pkey PRIMARY KEY (change_id)',
    'ALTER TABLE book_changes ADD CONSTRAINT book_changes_seq_key UNIQUE (seq)',
    'CREATE INDEX book_changes_unnumbered ON book_changes (change_id) WHERE seq IS NULL',
    'ALTER TABLE book_change_horizon ADD COLUMN numbered_through bigint NOT NULL DEFAULT 0',
    // Past every number drawn so far, committed or not: none is ever given twice.
    `UPDATE book_change_horizon SET numbered_through = GREATEST(trimmed_through,
      COALESCE((SELECT max(seq) FROM book_changes), 0),
      (SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM book_changes_seq))`,
    'DROP TRIGGER book_changes_log ON books',
    'DROP SEQUENCE book_changes_seq',
    `CREATE OR REPLACE FUNCTION book_changes_log() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
      context jsonb := nullif(current_setting('book_service.change_context', true), '')::jsonb;
      position integer;
    BEGIN
      IF jsonb_typeof(context) = 'array' THEN
        -- A group insert: one object per inserted row, in row order (the order rows fire in).
        position := coalesce(nullif(current_setting('book_service.change_context_row', true), ''), '0')::integer;
        PERFORM set_config('book_service.change_context_row', (position + 1)::text, true);
        context := context -> position;
      END IF;
      IF TG_OP = 'DELETE' THEN
        INSERT INTO book_changes (book_id, operation, version, title, author, year, changed_at, xid, actor, request_id)
          VALUES (OLD.id, 'deleted', OLD.version, NULL, NULL, NULL, ${now}, pg_current_xact_id(),
            context ->> 'actor', context ->> 'request_id');
      ELSE
        INSERT INTO book_changes (book_id, operation, version, title, author, year, changed_at, xid, actor, request_id)
          VALUES (NEW.id, CASE TG_OP WHEN 'INSERT' THEN 'created' ELSE 'updated' END, NEW.version, NEW.title,
            NEW.author, NEW.year, ${now}, pg_current_xact_id(), context ->> 'actor', context ->> 'request_id');
      END IF;
      RETURN NULL;
    END $$`,
    `CREATE TRIGGER book_changes_log AFTER INSERT OR UPDATE OR DELETE ON books
      FOR EACH ROW EXECUTE FUNCTION book_changes_log()`,
    `CREATE FUNCTION book_changes_number(batch integer) RETURNS integer LANGUAGE plpgsql AS $$
    DECLARE
      base bigint;
      numbered integer;
    BEGIN
      IF NOT EXISTS (SELECT FROM book_changes WHERE seq IS NULL) THEN
        RETURN 0;
      END IF;
      -- The counter's row lock: one numbering at a time, whoever calls it.
      SELECT numbered_through INTO base FROM book_change_horizon FOR UPDATE;
      WITH pending AS (
        SELECT change_id, row_number() OVER (ORDER BY change_id) AS n FROM book_changes
        WHERE seq IS NULL ORDER BY change_id LIMIT batch)
      UPDATE book_changes AS change SET seq = base + pending.n FROM pending
        WHERE change.change_id = pending.change_id AND change.seq IS NULL;
      GET DIAGNOSTICS numbered = ROW_COUNT;
      IF numbered > 0 THEN
        UPDATE book_change_horizon SET numbered_through = base + numbered;
        PERFORM pg_notify('book_changes', (base + numbered)::text);
      END IF;
      RETURN numbered;
    END $$`
  ]
}
