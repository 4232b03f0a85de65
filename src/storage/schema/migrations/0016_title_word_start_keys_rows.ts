import type { Kysely } from 'kysely'
import type { Engine } from '../../contracts/engine.js'
import { atomically, type MarkedMigration, type SqlTag } from './migration.js'

/**
 * Migration 0016's statements on PostgreSQL: `title_word_start_keys` (migration 0015) tells the
 * planner it returns about 10 rows (a title's word starts), not the 1,000 PostgreSQL assumes of a
 * set-returning function. With 1,000, the statement triggers that remove a changed or deleted
 * book's keys joined `title_word_starts` on `book_id` alone, which no index leads with: every
 * `PUT` that changed a title and every `DELETE` read the whole table (87 ms at 140,000 books,
 * docs/benchmarks.md "Behind PgBouncer"). With 10 they look each key up in the primary key
 * (`key`, `book_id`). The trigger functions' catalog rows are rewritten too (their cost is
 * unchanged), so every session compiles them, and plans their statements, again.
 */
const STATEMENTS = [
  'ALTER FUNCTION title_word_start_keys(text) ROWS 10',
  ...['insert', 'update', 'delete'].map((operation) => `ALTER FUNCTION books_title_word_starts_${operation}() COST 100`)
]

/** Migration 0016 (`0016_title_word_start_keys_rows`), for `engine`: its compatibility mark and its `up` (nothing on SQLite, whose row triggers look keys up by both columns). */
export function titleWordStartKeysRows(engine: Engine, sql: SqlTag): MarkedMigration {
  return {
    // A planner estimate only: older releases read and write the same rows as before.
    olderReleasesMayRun: true,
    async up(db: Kysely<unknown>) {
      if (engine !== 'postgres') return
      await atomically(db, engine, sql, async () => {
        for (const statement of STATEMENTS) await sql.raw(statement).execute(db)
      })
    }
  }
}
