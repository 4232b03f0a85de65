import assert from 'node:assert/strict'
import { test } from 'node:test'
import pg from 'pg'
import { createClient } from '../../src/client/index.js'
import { authHeaders, signToken } from '../support/app.js'
import { openFeed, seqsOf } from '../support/change-feed.js'
import { eventually } from '../support/client.js'
import { clusterSkipReason, startReplicatedPair } from '../support/cluster.js'
import { removeDirectory, startServer, temporaryDirectory, type RunningServer } from '../support/server.js'

// docs/several-instances.md "Read replicas": book reads go to a replica that has replayed far
// enough; a write's answer carries the position it committed at, and a read that sends it back
// sees that write, through any instance, even while the replica lags.

/** How far behind the primary the replica applies commits, on purpose (`recovery_min_apply_delay`). */
const REPLICA_DELAY_S = 5

const writer = authHeaders(signToken({ sub: 'writer' }))
const reader = authHeaders(signToken({ sub: 'reader' }))

async function create(server: RunningServer, headers: Record<string, string>, title: string): Promise<{ id: number; position: string }> {
  const response = await fetch(`${server.url}/book`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify({ title, author: 'R', year: 2001 })
  })
  assert.equal(response.status, 201)
  const { data } = (await response.json()) as { data: { id: number } }
  return { id: data.id, position: response.headers.get('commit-position') ?? '' }
}

/** Resolves once the replica at `url` has replayed `position` (a `Commit-Position`), and the instances have polled it since. */
async function replayed(url: string, position: string): Promise<void> {
  const replica = new pg.Client({ connectionString: url })
  await replica.connect()
  try {
    await eventually(
      `the replica replays ${position}`,
      async () => (await replica.query<{ done: boolean }>('SELECT pg_last_wal_replay_lsn() >= $1::pg_lsn AS done', [position])).rows[0]!.done,
      60_000
    )
  } finally {
    await replica.end()
  }
  // The instances read each replica's position every 50 ms.
  await new Promise((resolve) => setTimeout(resolve, 200))
}

async function status(server: RunningServer, path: string, headers: Record<string, string>): Promise<number> {
  const response = await fetch(`${server.url}${path}`, { headers })
  await response.arrayBuffer()
  return response.status
}

async function titles(server: RunningServer, headers: Record<string, string>): Promise<string[]> {
  const response = await fetch(`${server.url}/books?limit=1000&count=true`, { headers })
  assert.equal(response.status, 200)
  return ((await response.json()) as { data: { title: string }[] }).data.map((book) => book.title)
}

test(
  '[postgres] read replicas: a write\'s Commit-Position sent back reads it at once through another instance while the replica lags; another account without it reads the replica; the writer reads its writes without it through either instance; a stopped replica falls back to the primary',
  { skip: clusterSkipReason },
  async () => {
    const pair = await startReplicatedPair({ synchronous: false, standbySettings: [`recovery_min_apply_delay=${REPLICA_DELAY_S}s`] })
    const directories = [temporaryDirectory(), temporaryDirectory()]
    const servers: RunningServer[] = []
    try {
      const env = { DATABASE_URL: pair.primary.url, DATABASE_REPLICA_URLS: pair.standbyUrl, METRICS_ENABLED: 'true' }
      for (const directory of directories) servers.push(await startServer({ dataDirectory: directory, env }))
      const [a, b] = servers as [RunningServer, RunningServer]

      // The replica takes reads once it has replayed the instances' start (their migrations); here
      // it applies each commit seconds late, so wait for a write made after both started.
      const warmUp = await create(a, writer, 'warm-up')
      await replayed(pair.standbyUrl, warmUp.position)
      assert.equal(await status(b, `/book/${warmUp.id}`, reader), 200)

      const fresh = await create(a, writer, 'fresh')
      assert.match(fresh.position, /^[0-9A-F]{1,8}\/[0-9A-F]{1,8}$/, 'the write answers with its commit position')
      const withPosition = { ...reader, 'commit-position': fresh.position }
      // Through B with the position: the write, at once, in every kind of read.
      assert.equal(await status(b, `/book/${fresh.id}`, withPosition), 200)
      assert.ok((await titles(b, withPosition)).includes('fresh'), 'the list has it')
      assert.equal(await status(b, `/book/${fresh.id}/history`, withPosition), 200)
      // Without it, another account reads the replica, seconds behind: reads do go to the replica.
      assert.equal(await status(b, `/book/${fresh.id}`, reader), 404)
      assert.ok(!(await titles(b, reader)).includes('fresh'), 'the replica\'s list is behind')
      // The writer, without the header, through the instance it wrote on and through the other one
      // (every instance hears each write's announcement before the read): its write.
      assert.equal(await status(a, `/book/${fresh.id}`, writer), 200)
      assert.equal(await status(b, `/book/${fresh.id}`, writer), 200)
      assert.ok((await titles(b, writer)).includes('fresh'), 'the writer\'s list through B has it')
      // Each write, then at once a read of it by its writer through the other instance, without the header.
      for (let n = 0; n < 10; n++) {
        const [on, other] = n % 2 === 0 ? [a, b] : [b, a]
        const written = await create(on, writer, `sticky ${n}`)
        assert.equal(await status(other, `/book/${written.id}`, writer), 200, `write ${n} read back through the other instance`)
      }
      // A position that is not one reads from the primary.
      assert.equal(await status(b, `/book/${fresh.id}`, { ...reader, 'commit-position': 'not a position' }), 200)

      // The typed client sends its last write's position back on its reads, whichever instance answers.
      const toB = (input: string | URL | Request, init?: RequestInit) =>
        fetch((init?.method ?? 'GET') === 'GET' ? String(input).replace(a.url, b.url) : input, init)
      const client = createClient({ baseUrl: a.url, token: signToken({ sub: 'client' }), fetch: toB })
      const stored = await client.createBook({ title: 'through the client', author: 'R', year: 2002 })
      assert.equal((await client.getBook(stored.id)).title, 'through the client')

      // Once the replica has replayed it, the other account reads it there too.
      await replayed(pair.standbyUrl, fresh.position)
      assert.equal(await status(b, `/book/${fresh.id}`, reader), 200)

      // /metrics counts where B sent its reads: both servers served some.
      const metrics = await (await fetch(`${b.url}/metrics`)).text()
      for (const server of ['primary', 'replica']) {
        const count = Number(new RegExp(`^book_reads_total\\{server="${server}"\\} (\\d+)$`, 'm').exec(metrics)?.[1] ?? 0)
        assert.ok(count > 0, `book_reads_total{server="${server}"} is ${count}`)
      }
      assert.match(metrics, /^replica_fallbacks_total \d+$/m)

      // A replica that stops: its reads go to the primary, none fails.
      pair.stopStandby()
      const late = await create(a, writer, 'after the replica stopped')
      for (let n = 0; n < 5; n++) assert.equal(await status(b, `/book/${late.id}`, reader), 200, `read ${n} after the replica stopped`)
    } finally {
      for (const server of servers) await server.stop()
      for (const directory of directories) removeDirectory(directory)
      pair.destroy()
    }
  }
)

/** Heap rows of the change log read by index scans on the server at `url` (each server counts its own). */
async function changeLogRowsRead(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    const { rows } = await client.query<{ n: string }>("SELECT (COALESCE(idx_tup_fetch, 0) + COALESCE(seq_tup_read, 0))::text AS n FROM pg_stat_user_tables WHERE relname = 'book_changes'")
    return Number(rows[0]?.n ?? 0)
  } finally {
    await client.end()
  }
}

test(
  '[postgres] read replicas and the change feed: a catch-up while the replica lags comes from the primary, complete; once the replica holds the changes, from the replica; every change once and in order',
  { skip: clusterSkipReason },
  async () => {
    const pair = await startReplicatedPair({ synchronous: false, standbySettings: [`recovery_min_apply_delay=${REPLICA_DELAY_S}s`] })
    const directory = temporaryDirectory()
    let server: RunningServer | undefined
    const primary = new pg.Client({ connectionString: pair.primary.url })
    try {
      server = await startServer({ dataDirectory: directory, env: { DATABASE_URL: pair.primary.url, DATABASE_REPLICA_URLS: pair.standbyUrl } })
      await primary.connect()
      // 2,000 changes at once (one statement; the trigger logs each), numbered by the instance.
      await primary.query(
        `INSERT INTO books (title, author, year, title_folded, author_folded)
         SELECT 'Book ' || n, 'A', 2000, 'book ' || n, 'a' FROM generate_series(1, 2000) AS n`
      )
      await eventually('every change numbered', async () => (await primary.query('SELECT count(*)::int AS n FROM book_changes WHERE seq IS NULL')).rows[0].n === 0, 20_000)
      const numbered = (await primary.query<{ lsn: string }>('SELECT pg_current_wal_insert_lsn()::text AS lsn')).rows[0]!.lsn
      const everyChange = Array.from({ length: 2000 }, (_, index) => index + 1)

      // The replica has none of them yet: the whole catch-up comes from the primary, complete.
      const lagging = await openFeed(server.url, reader, '?after=0')
      assert.deepEqual(seqsOf(await lagging.waitFor(2000, 20_000)), everyChange)
      lagging.close()

      // Once it has replayed them, the catch-up reads them from the replica: its change log rows are read.
      await replayed(pair.standbyUrl, numbered)
      const before = await changeLogRowsRead(pair.standbyUrl)
      const caughtUp = await openFeed(server.url, reader, '?after=0')
      assert.deepEqual(seqsOf(await caughtUp.waitFor(2000, 20_000)), everyChange)
      caughtUp.close()
      await eventually('the replica counts the rows it served', async () => (await changeLogRowsRead(pair.standbyUrl)) - before >= 2000, 10_000)
    } finally {
      await primary.end().catch(() => {})
      await server?.stop()
      removeDirectory(directory)
      pair.destroy()
    }
  }
)
