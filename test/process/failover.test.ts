import assert from 'node:assert/strict'
import { test } from 'node:test'
import pg from 'pg'
import type { StreamEvent } from '../../src/client/event-stream.js'
import { authHeaders, signToken } from '../support/app.js'
import { openFeed, seqsOf } from '../support/change-feed.js'
import { eventually } from '../support/client.js'
import { clusterSkipReason, startReplicatedPair } from '../support/cluster.js'
import { removeDirectory, startServer, temporaryDirectory, type RunningServer } from '../support/server.js'
import { startReceiver } from '../support/webhook-receiver.js'

// docs/several-instances.md "Failover": the supported shape is a synchronous standby. A commit is
// acknowledged, and seen by any reader, only once the standby has it, so promoting the standby loses
// no numbered change and renumbers none.

const auth = authHeaders()
const admin = authHeaders(signToken({ role: 'admin' }))

/** The change an event names: its number, kind and book (each change once). */
function changeOf(event: StreamEvent): string {
  return `${event.lastEventId} ${event.type} ${event.data}`
}

async function post(url: string, title: string): Promise<number> {
  const response = await fetch(`${url}/book`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify({ title, author: 'F', year: 2000 }),
    signal: AbortSignal.timeout(15_000)
  }).catch(() => undefined)
  await response?.arrayBuffer()
  return response?.status ?? 0
}

test('[postgres] the primary killed under writes and its synchronous standby promoted: every acknowledged write kept, no feed gap, no duplicate, no renumbered change; webhooks go on from where they were', { skip: clusterSkipReason }, async () => {
  const pair = await startReplicatedPair()
  const receiver = await startReceiver()
  const directories = Array.from({ length: 4 }, () => temporaryDirectory())
  const servers: RunningServer[] = []
  const env = (url: string) => ({ DATABASE_URL: url, WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_SCHEDULE: '1,1,1,1,1,1,1,1,1,1' })
  try {
    for (const directory of directories.slice(0, 2)) servers.push(await startServer({ dataDirectory: directory, env: env(pair.primary.url) }))
    const [one, two] = servers as [RunningServer, RunningServer]
    const endpoint = await fetch(`${one.url}/webhooks`, { method: 'POST', headers: { ...admin, 'content-type': 'application/json' }, body: JSON.stringify({ url: receiver.url }) })
    receiver.secrets = [((await endpoint.json()) as { data: { secret: string } }).data.secret]
    const before = await openFeed(two.url, auth, '?after=0')

    // Writers through both instances; the primary dies under them.
    const acknowledged: string[] = []
    let writing = true
    const lanes = Array.from({ length: 4 }, async (_, lane) => {
      for (let n = 0; writing; n++) {
        const title = `lane ${lane} write ${n}`
        if ((await post(lane % 2 === 0 ? one.url : two.url, title)) === 201) acknowledged.push(title)
      }
    })
    await eventually('writes acknowledged before the kill', async () => acknowledged.length >= 40, 20_000)
    pair.killPrimary()
    writing = false
    await Promise.all(lanes)
    const seenBefore = [...before.events]
    before.close()
    for (const server of servers.splice(0)) await server.stop('SIGKILL')

    pair.promote()
    for (const directory of directories.slice(2)) servers.push(await startServer({ dataDirectory: directory, env: env(pair.standbyUrl) }))
    const [three, four] = servers as [RunningServer, RunningServer]
    for (let n = 0; n < 10; n++) assert.equal(await post(n % 2 === 0 ? three.url : four.url, `after the failover ${n}`), 201)

    const promoted = new pg.Client({ connectionString: pair.standbyUrl })
    await promoted.connect()
    try {
      // Every acknowledged write is on the promoted standby.
      const { rows: books } = await promoted.query<{ title: string }>('SELECT title FROM books')
      const stored = new Set(books.map((book) => book.title))
      assert.deepEqual(acknowledged.filter((title) => !stored.has(title)), [], 'no acknowledged write lost')
      await eventually('every change numbered', async () => (await promoted.query('SELECT count(*)::int AS n FROM book_changes WHERE seq IS NULL')).rows[0].n === 0, 10_000)
      const { rows: [log] } = await promoted.query<{ n: number; high: number; books: number }>('SELECT count(*)::int AS n, max(seq)::int AS high, count(DISTINCT book_id)::int AS books FROM book_changes')
      assert.equal(log!.high, log!.n, 'the numbers have no gap')
      assert.equal(log!.books, log!.n, 'each book created once')

      // The feed from the start on the promoted side: 1..n, and what a subscriber saw before the
      // failover is its prefix, change for change.
      const after = await openFeed(three.url, auth, '?after=0')
      const events = await after.waitFor(log!.n, 10_000)
      after.close()
      assert.deepEqual(seqsOf(events), Array.from({ length: log!.n }, (_, i) => i + 1))
      assert.ok(seenBefore.length > 0)
      assert.deepEqual(seenBefore.map(changeOf), events.slice(0, seenBefore.length).map(changeOf), 'no change renumbered')

      // Webhooks: the dispatcher on the promoted side goes on from the recorded position: every
      // change reaches the endpoint, and a change sent again carries the same number and body.
      await eventually('every change delivered', async () => new Set(receiver.received.map((entry) => entry.payload?.data.seq)).size >= log!.n, 20_000)
      const bodies = new Map<number, string>()
      for (const entry of receiver.received) {
        if (entry.payload === undefined) continue
        const body = JSON.stringify(entry.payload.data)
        const seq = entry.payload.data.seq
        assert.equal(bodies.get(seq) ?? body, body, `change ${seq} delivered twice with different bodies`)
        bodies.set(seq, body)
      }
      assert.deepEqual([...bodies.keys()].sort((a, b) => a - b), Array.from({ length: log!.n }, (_, i) => i + 1))
    } finally {
      await promoted.end()
    }
  } finally {
    for (const server of servers) await server.stop('SIGKILL')
    await receiver.close()
    pair.destroy()
    directories.forEach(removeDirectory)
  }
})
