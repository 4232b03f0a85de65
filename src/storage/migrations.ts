import type { Kysely, Migration, MigrationProvider, sql as Sql } from 'kysely'
import { foldText } from '../book/fold.js'
import { BASE_LETTERS, DIACRITIC_LETTERS } from '../book/search.js'
import type { Engine } from './engine.js'
import { assertOlderReleaseMayRun, executedMigrations, recordCompatibility } from './schema-compatibility.js'

/** Kysely's `sql` template tag, passed in so Kysely is loaded only when something is migrated. */
type SqlTag = typeof Sql

/**
 * A migration and its compatibility mark (schema-compatibility.ts): `olderReleasesMayRun: true`
 * when releases that do not know it may keep running on the database once it is applied (it only
 * adds what older code never touches); absent means they may not.
 */
type MarkedMigration = Migration & { olderReleasesMayRun?: true }

/**
 * The one migration history of both engines, in order (names sort in application order).
 * A migration is never edited once released: add a new one instead, with its mark.
 */
function migrations(engine: Engine, sql: SqlTag): Record<string, MarkedMigration> {
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
    },
    '0003_accounts': {
      olderReleasesMayRun: true,
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
    '0004_book_change_log': {
      // Older releases may run on it: their writes fire the same triggers, so the log stays whole.
      olderReleasesMayRun: true,
      // The change log (docs/change-feed.md "Change log"; src/storage/change-log.ts): one row per committed
      // create, update and delete, written by triggers on `books`, so in the same transaction as
      // the change. Books stored before this migration have no history: the log starts here.
      async up(db: Kysely<unknown>) {
        for (const statement of changeLogSchema(engine)) await sql.raw(statement).execute(db)
      }
    },
    '0005_idempotency_keys': {
      olderReleasesMayRun: true,
      // The first answer of each `Idempotency-Key` on POST /book (docs/api.md "Retries and
      // Idempotency-Key"), written in the same transaction as the book it created. `subject` is the
      // token's `sub` claim as JSON text (any claim value is stored unchanged on both engines);
      // `fingerprint` the SHA-256 of the book the body described; `created_at` ISO 8601 UTC text.
      async up(db: Kysely<unknown>) {
        await atomically(db, engine, sql, () => createIdempotencyKeys(db, engine))
      }
    },
    '0006_login_attempts': {
      olderReleasesMayRun: true,
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
    },
    '0007_change_log_numbering': {
      // Not marked: an older release's writes would still be logged (the same trigger), but
      // numbered only while an instance of this release runs the sequencer; an older release
      // alone (a rollback) would leave its feed waiting for numbers that never come.
      // Each change-log row records who made it and the request that did (docs/change-feed.md "Change log";
      // `ChangeContext` in src/storage/change-log.ts): null for the writes of other programs. On
      // PostgreSQL the rows are numbered after commit by one sequencer, without a lock or NOTIFY
      // in the writing transactions (changeLogNumbering below).
      async up(db: Kysely<unknown>) {
        await atomically(db, engine, sql, async () => {
          for (const statement of changeLogNumbering(engine)) await sql.raw(statement).execute(db)
        })
      }
    },
    '0008_change_history': {
      // Older releases may run on it: they never read the new column, and their writes leave it null.
      olderReleasesMayRun: true,
      // A book's history (README "History and restore"; src/storage/book-history.ts): the change
      // context's `restoredFrom` (the version a restore brought back, null for every other change)
      // and the index that makes a book's history, newest first, a range read of that book's rows
      // however long the log.
      async up(db: Kysely<unknown>) {
        await atomically(db, engine, sql, async () => {
          for (const statement of changeHistory(engine)) await sql.raw(statement).execute(db)
        })
      }
    },
    '0009_search_index': {
      // Older releases may run on it: on SQLite their writes fire the same triggers, on
      // PostgreSQL the indexes are on expressions of the columns they already write.
      olderReleasesMayRun: true,
      // The search index of `GET /books?q=…` (docs/search.md "Search"; storage/search-sql.ts).
      async up(db: Kysely<unknown>) {
        await atomically(db, engine, sql, async () => {
          for (const statement of searchIndexSchema(engine)) await sql.raw(statement).execute(db)
        })
      }
    },
    '0010_webhooks': {
      // Older releases never touch these tables: they may keep running on the database.
      olderReleasesMayRun: true,
      // Webhooks (docs/webhooks.md; src/storage/webhook-store.ts): the endpoints with their
      // secrets and their position in the change log, one row per delivery, and the dispatcher's
      // lease (one sender per database).
      async up(db: Kysely<unknown>) {
        await atomically(db, engine, sql, async () => {
          for (const statement of webhookSchema(engine)) await sql.raw(statement).execute(db)
        })
      }
    }
  }
}

/** The PostgreSQL session-level advisory lock key ("bookseqn" in ASCII) its holder numbers the change log under. */
export const CHANGE_NUMBERING_LOCK = 0x626f6f6b7365716en

/**
 * Migration 0007's statements. Both engines: the context columns of `book_changes`
 * (`CHANGE_CONTEXT_COLUMNS` in change-log-sql.ts, `ChangeContext` in change-log.ts). SQLite keeps
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
 *   session-level advisory lock {@link CHANGE_NUMBERING_LOCK}: storage/postgres/change-numbering.ts),
 *   gives the committed unnumbered rows it can see, in `change_id` order, the numbers after
 *   `book_change_horizon.numbered_through` and moves that on, in one transaction, then notifies
 *   `book_changes` once. A row is visible only once its transaction committed, a rolled-back one
 *   never, and the batches are numbered one after another (the counter's row lock), each committed
 *   before the next is read; so the numbers are contiguous, readers see them as a growing prefix,
 *   and a number once seen is never followed by a smaller one. The counter is a row, not a
 *   sequence: a batch rolled back returns its numbers, and `pg_dump` carries it with the data.
 */
function changeLogNumbering(engine: Engine): string[] {
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

/**
 * Migration 0008's statements: the column of the change context's `restoredFrom` (`ChangeContext`
 * in change-log.ts, `CHANGE_CONTEXT_COLUMNS` in change-log-sql.ts) and the index of a book's
 * history: `(book_id, seq)` on SQLite, `(book_id, change_id)` on PostgreSQL.
 *
 * On PostgreSQL the column is filled from the writing transaction's `book_service.change_context`
 * like the other context fields, by a trigger of its own on `book_changes` (before each row is
 * inserted, whichever trigger of `books` inserts it), so it does not depend on the body of the
 * function that writes the rows. A restore is never part of a group insert, so a context that is
 * an array (one object per row) leaves it null. SQLite's writer stamps it with the other fields.
 */
function changeHistory(engine: Engine): string[] {
  const column = 'ALTER TABLE book_changes ADD COLUMN restored_from integer NULL'
  // A book's history in change order: `seq` on SQLite; on PostgreSQL `change_id` (migration 0007),
  // there as soon as the change commits, before the sequencer numbers it (book-history.ts).
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

/**
 * Migration 0010's statements. `webhook_endpoints.position` is the last change-log number the
 * endpoint is done with (sent or given up); `revision` moves on every change an admin makes, so
 * the dispatcher's position writes never undo a replay. Secrets are kept as written (`whsec_…`):
 * an HMAC key must be recoverable to sign; `previous_secret` keeps signing until
 * `previous_secret_until` (ms since the epoch). Times are ms since the epoch (bigint) on both
 * engines, but `created_at` (ISO 8601 UTC text, as the API shows it).
 */
function webhookSchema(engine: Engine): string[] {
  const serial = engine === 'postgres' ? 'bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY' : 'INTEGER PRIMARY KEY AUTOINCREMENT'
  return [
    `CREATE TABLE webhook_endpoints (
      id text PRIMARY KEY, url text NOT NULL, events text NOT NULL, description text,
      enabled integer NOT NULL, disabled_reason text,
      secret text NOT NULL, previous_secret text, previous_secret_until bigint,
      created_at text NOT NULL, position bigint NOT NULL, revision integer NOT NULL)`,
    `CREATE TABLE webhook_deliveries (
      id ${serial}, endpoint_id text NOT NULL, seq bigint NOT NULL, event text NOT NULL,
      webhook_id text NOT NULL, attempt integer NOT NULL, status text NOT NULL,
      http_status integer, error text, at bigint NOT NULL, next_attempt_at bigint)`,
    'CREATE INDEX webhook_deliveries_endpoint ON webhook_deliveries (endpoint_id, id)',
    'CREATE TABLE webhook_dispatcher_lease (name text PRIMARY KEY, holder text NOT NULL, expires_at bigint NOT NULL)',
    "INSERT INTO webhook_dispatcher_lease (name, holder, expires_at) VALUES ('dispatcher', '', 0)"
  ]
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
function searchIndexSchema(engine: Engine): string[] {
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
function changeLogSchema(engine: Engine): string[] {
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

/**
 * Runs `work` so that it applies entirely or not at all: on PostgreSQL the migrator already runs
 * each migration in one transaction; on SQLite (DDL is transactional there too) it is wrapped here.
 */
async function atomically(db: Kysely<unknown>, engine: Engine, sql: SqlTag, work: () => Promise<void>): Promise<void> {
  if (engine === 'postgres') return work()
  await sql`BEGIN IMMEDIATE`.execute(db)
  try {
    await work()
    await sql`COMMIT`.execute(db)
  } catch (error) {
    await sql`ROLLBACK`.execute(db)
    throw error
  }
}

/** Migration 0005: the table of `Idempotency-Key` answers, and the index its expiry trims by. */
async function createIdempotencyKeys(db: Kysely<unknown>, engine: Engine): Promise<void> {
  await db.schema
    .createTable('idempotency_keys')
    .addColumn('subject', 'text', (column) => column.notNull())
    .addColumn('idempotency_key', 'text', (column) => column.notNull())
    .addColumn('fingerprint', 'text', (column) => column.notNull())
    .addColumn('status', 'integer', (column) => column.notNull())
    .addColumn('book_id', engine === 'postgres' ? 'bigint' : 'integer', (column) => column.notNull())
    .addColumn('response', 'text', (column) => column.notNull())
    .addColumn('created_at', 'text', (column) => column.notNull())
    .addPrimaryKeyConstraint('idempotency_keys_pkey', ['subject', 'idempotency_key'])
    .execute()
  await db.schema.createIndex('idempotency_keys_created_at').on('idempotency_keys').column('created_at').execute()
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
 * First it records the compatibility mark of each migration it knows (schema-compatibility.ts).
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
  const known = migrations(engine, sql)
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
    return (results ?? []).filter((result) => result.status === 'Success').map((result) => result.migrationName)
  }
}
