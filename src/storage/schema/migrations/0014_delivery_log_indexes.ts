import type { Kysely } from 'kysely'
import type { Engine } from '../../contracts/engine.js'
import { createIndexConcurrently, type OnlineIndex } from '../online.js'
import { atomically, type MarkedMigration, type SqlTag } from './migration.js'

/**
 * Migration 0014's indexes of `webhook_deliveries` (docs/webhooks.md "Delivery log"):
 * - `webhook_deliveries_endpoint_seq`: an endpoint's log newest first by change (`seq` then `id`,
 *   descending), read a page at a time;
 * - `webhook_deliveries_endpoint_status`: an endpoint's pending or failed deliveries (and the
 *   log filtered by `status`), in change order, without a scan;
 * - `webhook_deliveries_at`: the oldest entries first, for the trim after
 *   `WEBHOOK_DELIVERY_MAX_AGE` (src/storage/retention.ts).
 */
const DELIVERY_LOG_INDEXES: readonly OnlineIndex[] = [
  { name: 'webhook_deliveries_endpoint_seq', table: 'webhook_deliveries', columns: '(endpoint_id, seq, id)' },
  { name: 'webhook_deliveries_endpoint_status', table: 'webhook_deliveries', columns: '(endpoint_id, status, seq, id)' },
  { name: 'webhook_deliveries_at', table: 'webhook_deliveries', columns: '(at)' }
]

/** Migration 0014 (`0014_delivery_log_indexes`), for `engine`: its compatibility mark, its `up` and its online part. */
export function deliveryLogIndexes(engine: Engine, sql: SqlTag): MarkedMigration {
  return {
    // Indexes only: older releases read and write the same rows as before.
    olderReleasesMayRun: true,
    // SQLite: the indexes in one transaction (one writer; writes wait while they build).
    // PostgreSQL: nothing here; the online part builds them concurrently, so a log of millions of
    // deliveries keeps taking writes meanwhile (docs/operations.md "Migrations while other instances serve").
    async up(db: Kysely<unknown>) {
      if (engine === 'postgres') return
      await atomically(db, engine, sql, async () => {
        for (const index of DELIVERY_LOG_INDEXES) await sql.raw(`CREATE INDEX ${index.name} ON ${index.table} ${index.columns}`).execute(db)
      })
    },
    ...(engine === 'postgres'
      ? {
          async online(db: Kysely<unknown>) {
            for (const index of DELIVERY_LOG_INDEXES) await createIndexConcurrently(db, sql, index)
          }
        }
      : {})
  }
}
