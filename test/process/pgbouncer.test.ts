import assert from 'node:assert/strict'
import { test } from 'node:test'
import pg from 'pg'
import { MIGRATION_NAMES } from '../../src/storage/schema/migrate.js'
import { authHeaders } from '../support/app.js'
import { openFeed, seqsOf } from '../support/change-feed.js'
import { createPostgresDatabase } from '../support/engines.js'
import { BOUND_CONNECT_QUERY, pgbouncerSkipReason, startPgBouncer } from '../support/pgbouncer.js'
import { removeDirectory, startServer, temporaryDirectory, type RunningServer } from '../support/server.js'

// docs/several-instances.md "Behind PgBouncer": DATABASE_URL names a transaction-mode pooler and
// DATABASE_DIRECT_URL the server itself, for migrations, the change log's numbering and listener.
// The feed through the pooler: test/process/change-numbering.test.ts (a slow writer held open) and
// test/process/change-feed.test.ts (a burst through two instances) run through it too.

const auth = authHeaders()

async function call(url: string, method: string, path: string, body?: unknown): Promise<number> {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: { ...auth, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body)
  })
  await response.arrayBuffer()
  return response.status
}

test('[postgres] three instances starting together through PgBouncer migrate once and serve; no advisory lock left but the numbering\'s; server connections within the pool + 2 per instance', { skip: pgbouncerSkipReason }, async () => {
  const poolSize = 4
  const instances = 3
  const database = await createPostgresDatabase()
  const bouncer = await startPgBouncer({ poolSize, connectQuery: BOUND_CONNECT_QUERY })
  const admin = new pg.Client({ connectionString: database.url })
  const directories = Array.from({ length: instances }, () => temporaryDirectory())
  const servers: RunningServer[] = []
  let sampling = true
  let peak = 0
  try {
    await admin.connect()
    const env = { DATABASE_URL: bouncer.through(database.url), DATABASE_DIRECT_URL: database.url, DATABASE_POOL_SIZE: '8' }
    servers.push(...(await Promise.all(directories.map((directory) => startServer({ dataDirectory: directory, env })))))
    const sampler = (async () => {
      while (sampling) {
        const { rows } = await admin.query<{ n: number }>('SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()')
        peak = Math.max(peak, rows[0]!.n)
        await new Promise((resolve) => setTimeout(resolve, 20))
      }
    })()
    const feed = await openFeed(servers[0]!.url, auth, '?after=0')

    // Every kind of statement the pooled connections run, from all three at once.
    const statuses = await Promise.all(
      Array.from({ length: 60 }, (_, n) => call(servers[n % instances]!.url, 'POST', '/book', { title: `Pooled ${n}`, author: 'P', year: 2000 + n }))
    )
    assert.deepEqual(new Set(statuses), new Set([201]))
    const reads = await Promise.all(
      servers.flatMap((server, n) => [
        call(server.url, 'PUT', `/book/${n + 1}`, { title: `Pooled again ${n}` }),
        call(server.url, 'GET', `/book/${n + 1}`),
        call(server.url, 'GET', '/books?q=pooled&limit=5'),
        call(server.url, 'GET', '/books?limit=100&count=true'),
        call(server.url, 'GET', `/book/${n + 1}/history`)
      ])
    )
    assert.deepEqual(new Set(reads), new Set([200]))
    const events = await feed.waitFor(63, 10_000)
    assert.deepEqual(seqsOf(events), Array.from({ length: 63 }, (_, i) => i + 1), 'the feed through the pooler: each change once, in order')
    feed.close()
    sampling = false
    await sampler

    const { rows: migrations } = await admin.query<{ name: string }>('SELECT name FROM kysely_migration ORDER BY name')
    assert.deepEqual(migrations.map((row) => row.name), [...MIGRATION_NAMES])
    const { rows: locks } = await admin.query<{ application_name: string }>(`SELECT a.application_name FROM pg_locks l JOIN pg_stat_activity a USING (pid)
      WHERE l.locktype = 'advisory' AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())`)
    assert.deepEqual(locks.map((row) => row.application_name), ['book-service-numbering'], 'only the numbering lock, held by one instance')
    // Sampled at all: each instance's numbering connection alone makes `instances` of them.
    assert.ok(peak >= instances, `the sampler saw ${peak} server connections`)
    assert.ok(peak <= poolSize + 2 * instances, `${peak} server connections at most (pool ${poolSize}, ${instances} instances)`)
    for (const server of servers) assert.doesNotMatch(server.output(), /warning: statement_timeout/)
  } finally {
    sampling = false
    for (const server of servers) await server.stop()
    await admin.end().catch(() => {})
    await bouncer.stop()
    await database.drop()
    directories.forEach(removeDirectory)
  }
})

test('[postgres] through a PgBouncer that does not set the statement bound, start-up says so in one warning line', { skip: pgbouncerSkipReason }, async () => {
  const database = await createPostgresDatabase()
  const bouncer = await startPgBouncer({ poolSize: 2 })
  const directory = temporaryDirectory()
  let server: RunningServer | undefined
  try {
    server = await startServer({ dataDirectory: directory, env: { DATABASE_URL: bouncer.through(database.url), DATABASE_DIRECT_URL: database.url } })
    assert.equal(await call(server.url, 'POST', '/book', { title: 'Unbounded', author: 'U', year: 1 }), 201)
    assert.match(server.output(), /book-service: warning: statement_timeout through DATABASE_URL is unset, not 10000 ms: .*docs\/several-instances\.md "Behind PgBouncer"/)
  } finally {
    await server?.stop()
    await bouncer.stop()
    await database.drop()
    removeDirectory(directory)
  }
})
