import assert from 'node:assert/strict'
import { join } from 'node:path'
import { after, describe, test } from 'node:test'
import Database from 'better-sqlite3'
import pg from 'pg'
import { MIGRATION_NAMES } from '../../../src/storage/schema/migrate.js'
import { authHeaders } from '../../support/app.js'
import { runCli } from '../../support/cli.js'
import { createPostgresDatabase, engines, type TestDatabase } from '../../support/engines.js'
import { removeDirectory, startServer, temporaryDirectory } from '../../support/server.js'
import { processSkipReason } from '../../support/scope.js'

/**
 * Rolling upgrades and rollbacks (docs/several-instances.md "Rolling upgrades"), on the real process and both
 * engines: a database that a newer release migrated further starts this release when every
 * migration it does not know is marked additive in `schema_compatibility`, and ends start-up with
 * one line on stderr (exit 1) when one is not (or has no mark).
 */
const auth = { ...authHeaders(), 'content-type': 'application/json' }

/** Runs SQL on the test database of `engine` (SQLite file or PostgreSQL URL), as a newer release would have. */
async function execute(engine: string, url: string, statements: string[]): Promise<void> {
  if (engine === 'sqlite') {
    const db = new Database(url)
    try {
      for (const statement of statements) db.exec(statement)
    } finally {
      db.close()
    }
    return
  }
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    for (const statement of statements) await client.query(statement)
  } finally {
    await client.end()
  }
}

/** What a newer release leaves: `name` in Kysely's history and, unless `mark` is undefined, its mark. */
function appliedByNewerRelease(name: string, mark: 0 | 1 | undefined): string[] {
  return [
    `INSERT INTO kysely_migration (name, timestamp) VALUES ('${name}', '2030-01-01T00:00:00.000Z')`,
    ...(mark === undefined ? [] : [`INSERT INTO schema_compatibility (migration, older_releases_may_run) VALUES ('${name}', ${mark})`])
  ]
}

for (const { engine, skip } of engines) {
  describe(`a database ahead of this release (real process) [${engine}]`, { skip: processSkipReason ?? skip }, () => {
    const directories: string[] = []
    const databases: TestDatabase[] = []
    after(async () => {
      directories.forEach(removeDirectory)
      for (const database of databases) await database.drop()
    })

    /** A data folder and a database migrated by this release (`book-service migrate`). */
    async function migrated() {
      const directory = temporaryDirectory()
      directories.push(directory)
      const database = engine === 'postgres' ? await createPostgresDatabase() : undefined
      if (database) databases.push(database)
      const url = database?.url ?? join(directory, 'books.db')
      const env = { DATABASE_URL: url, SECRET_TOKEN: 'x'.repeat(32), AUTH_PASSWORD: 'a long enough passphrase' }
      const run = await runCli(['migrate'], { cwd: directory, env })
      assert.equal(run.code, 0, run.stderr)
      return { directory, url, env }
    }

    test('each migration this release knows is recorded with its mark', async () => {
      const { url } = await migrated()
      const marks: Array<{ migration: string; older_releases_may_run: number }> = []
      if (engine === 'sqlite') {
        const db = new Database(url, { readonly: true })
        marks.push(...(db.prepare('SELECT migration, older_releases_may_run FROM schema_compatibility ORDER BY migration').all() as typeof marks))
        db.close()
      } else {
        const client = new pg.Client({ connectionString: url })
        await client.connect()
        marks.push(...(await client.query('SELECT migration, older_releases_may_run FROM schema_compatibility ORDER BY migration')).rows)
        await client.end()
      }
      assert.deepEqual(marks.map((mark) => mark.migration), [...MIGRATION_NAMES])
      assert.deepEqual(
        Object.fromEntries(marks.map((mark) => [mark.migration, Number(mark.older_releases_may_run)])),
        { ...Object.fromEntries(MIGRATION_NAMES.map((name) => [name, 0])), '0003_accounts': 1, '0004_book_change_log': 1, '0005_idempotency_keys': 1, '0006_login_attempts': 1, '0008_change_history': 1, '0009_search_index': 1, '0010_webhooks': 1, '0012_api_tokens': 1, '0013_ranked_search': 1, '0014_delivery_log_indexes': 1, '0015_title_word_starts': 1, '0016_title_word_start_keys_rows': 1 }
      )
    })

    test('newer migrations all marked additive: it starts, serves, and `migrate` has nothing to do', async () => {
      const { directory, url, env } = await migrated()
      await execute(engine, url, [...appliedByNewerRelease('9000_future_table', 1), ...appliedByNewerRelease('9001_future_column', 1)])
      const server = await startServer({ dataDirectory: directory, env: { DATABASE_URL: url } })
      try {
        const created = await fetch(`${server.url}/book`, { method: 'POST', headers: auth, body: JSON.stringify({ title: 'T', author: 'A', year: 1 }) })
        assert.equal(created.status, 201)
        assert.equal((await fetch(`${server.url}/readyz`)).status, 200)
      } finally {
        assert.equal(await server.stop(), 0)
      }
      const again = await runCli(['migrate'], { cwd: directory, env })
      assert.equal(again.code, 0, again.stderr)
    })

    for (const [name, mark] of [['9002_future_rewrite', 0], ['9003_future_unmarked', undefined]] as const) {
      test(`a newer migration ${mark === 0 ? 'marked not additive' : 'without a mark'}: start-up ends with exit 1 and one line naming it`, async () => {
        const { directory, url, env } = await migrated()
        await execute(engine, url, [...appliedByNewerRelease('9000_future_table', 1), ...appliedByNewerRelease(name, mark)])
        for (const command of [['serve'], ['migrate']]) {
          const run = await runCli(command, { cwd: directory, env })
          assert.equal(run.code, 1, `${command[0]}: ${run.stdout}${run.stderr}`)
          const lines = run.stderr.trimEnd().split('\n')
          assert.equal(lines.length, 1, run.stderr)
          assert.match(lines[0]!, new RegExp(`newer release \\(${name}\\)`))
        }
      })
    }
  })
}
