import type { Kysely } from 'kysely'
import type { Engine } from '../../contracts/engine.js'
import { atomically, type MarkedMigration, type SqlTag } from './migration.js'

/**
 * Migration 0011 (`0011_replays_and_username_skeletons`), for `engine`. No compatibility mark:
 * a release before it would create accounts without a skeleton (bypassing the look-alike check)
 * and replay without moving `replays`, so it may not keep running on a database migrated here.
 */
export function replaysAndUsernameSkeletons(engine: Engine, sql: SqlTag): MarkedMigration {
  return {
    // - `webhook_endpoints.replays` moves on a replay only (`revision` moves on every admin
    //   change): the dispatcher's writes of an endpoint's `seq` (column `position`) are refused
    //   only after a replay, so a rotation or an edit keeps the `seq` it reached (docs/webhooks.md
    //   "Managing endpoints").
    // - `accounts.username_skeleton`, unique: the confusable skeleton of the username
    //   (`account/skeleton.ts`, docs/accounts.md "Look-alike usernames"), computed here for the
    //   existing accounts. Where existing accounts already share one, the oldest (by `created_at`,
    //   then username key) keeps it and the others get none (NULL: they go on working, and the
    //   skeleton stays taken by the oldest).
    async up(db: Kysely<unknown>) {
      await atomically(db, engine, sql, async () => {
        await sql.raw('ALTER TABLE webhook_endpoints ADD COLUMN replays integer NOT NULL DEFAULT 0').execute(db)
        await sql.raw('ALTER TABLE accounts ADD COLUMN username_skeleton text').execute(db)
        const { rows } = await sql<{ username_key: string; username: string }>`
          SELECT username_key, username FROM accounts ORDER BY created_at, username_key`.execute(db)
        // Loaded here, not with the migration list: only a database that migrates needs the table.
        const { usernameSkeleton } = await import('../../../account/skeleton.js')
        const taken = new Set<string>()
        for (const { username_key: key, username } of rows) {
          const skeleton = usernameSkeleton(username)
          if (taken.has(skeleton)) continue
          taken.add(skeleton)
          await sql`UPDATE accounts SET username_skeleton = ${skeleton} WHERE username_key = ${key}`.execute(db)
        }
        await sql.raw('CREATE UNIQUE INDEX accounts_username_skeleton ON accounts (username_skeleton)').execute(db)
      })
    }
  }
}
