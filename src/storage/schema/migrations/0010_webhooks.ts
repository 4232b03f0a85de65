import type { Kysely } from 'kysely'
import type { Engine } from '../../contracts/engine.js'
import { atomically, type MarkedMigration, type SqlTag } from './migration.js'

/** Migration 0010 (`0010_webhooks`), for `engine`: its compatibility mark and its `up`. */
export function webhooks(engine: Engine, sql: SqlTag): MarkedMigration {
  return {
    // Older releases never touch these tables: they may keep running on the database.
    olderReleasesMayRun: true,
    // Webhooks (docs/webhooks.md; src/storage/contracts/webhook-store.ts): the endpoints with their
    // secrets and their position in the change log, one row per delivery, and the dispatcher's
    // lease (one sender per database).
    async up(db: Kysely<unknown>) {
      await atomically(db, engine, sql, async () => {
        for (const statement of webhookStatements(engine)) await sql.raw(statement).execute(db)
      })
    }
  }
}

/**
 * Migration 0010's statements. `webhook_endpoints.position` is the last change-log number the
 * endpoint is done with (sent or given up); `revision` moves on every change an admin makes, so
 * the dispatcher's position writes never undo a replay. Secrets are kept as written (`whsec_…`):
 * an HMAC key must be recoverable to sign; `previous_secret` keeps signing until
 * `previous_secret_until` (ms since the epoch). Times are ms since the epoch (bigint) on both
 * engines, but `created_at` (ISO 8601 UTC text, as the API shows it).
 */
function webhookStatements(engine: Engine): string[] {
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
