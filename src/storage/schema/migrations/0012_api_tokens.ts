import type { Kysely } from 'kysely'
import type { Engine } from '../../contracts/engine.js'
import { atomically, type MarkedMigration, type SqlTag } from './migration.js'

/** Migration 0012 (`0012_api_tokens`), for `engine`: its compatibility mark and its `up`. */
export function apiTokens(engine: Engine, sql: SqlTag): MarkedMigration {
  return {
    // A new table older releases never touch: they may keep running on the database. An account an
    // older release deletes keeps its token rows, which `account_created_at` then matches to no
    // account, a re-created one of the same name included (src/storage/sql/api-token-statements.ts).
    olderReleasesMayRun: true,
    // API tokens (docs/api-tokens.md): one row per token, never the token itself. `ordinal` orders
    // them by creation; `id` is the token's `jti`; `username_key` and `account_created_at` name the
    // account (its key and its `created_at`). Times are ms since the epoch (bigint) on both engines.
    async up(db: Kysely<unknown>) {
      await atomically(db, engine, sql, async () => {
        for (const statement of apiTokenStatements(engine)) await sql.raw(statement).execute(db)
      })
    }
  }
}

/** Migration 0012's statements: the table, and the index of an account's tokens, newest first. */
function apiTokenStatements(engine: Engine): string[] {
  const ordinal = engine === 'postgres' ? 'bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY' : 'INTEGER PRIMARY KEY AUTOINCREMENT'
  return [
    `CREATE TABLE api_tokens (
      ordinal ${ordinal}, id text NOT NULL UNIQUE, username_key text NOT NULL, account_created_at text NOT NULL,
      name text NOT NULL, role text NOT NULL, created_at bigint NOT NULL, expires_at bigint, last_used_at bigint)`,
    'CREATE INDEX api_tokens_account ON api_tokens (username_key, ordinal)'
  ]
}
