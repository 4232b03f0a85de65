import assert from 'node:assert/strict'
import { connect, type Socket } from 'node:net'
import { join } from 'node:path'
import { describe, test } from 'node:test'
import { seedSqlite } from '../../bench/seed.js'
import { authHeaders, signToken } from '../support/app.js'
import { openFeed, seqsOf } from '../support/change-feed.js'
import { eventually } from '../support/client.js'
import { createPostgresDatabase, engines } from '../support/engines.js'
import { removeDirectory, startServer, temporaryDirectory, type RunningServer } from '../support/server.js'
import { BOUND_CONNECT_QUERY, pgbouncerSkipReason, startPgBouncer } from '../support/pgbouncer.js'
import { describeEachEngineServer } from '../support/suite.js'

const auth = authHeaders()

async function send(url: string, method: string, body?: unknown): Promise<number> {
  const response = await fetch(url, {
    method,
    headers: { ...auth, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body)
  })
  await response.arrayBuffer()
  return response.status
}

/**
 * Concurrent creates, then concurrent updates and deletes of them, spread over `urls` (instances
 * of one database). Resolves with how many changes were made.
 */
async function burst(urls: string[], books: number): Promise<number> {
  const created = await Promise.all(
    Array.from({ length: books }, async (_, i) => {
      const url = urls[i % urls.length]!
      const response = await fetch(`${url}/book`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ title: `Burst ${i}`, author: 'A', year: 2000 })
      })
      assert.equal(response.status, 201)
      return ((await response.json()) as { data: { id: number } }).data.id
    })
  )
  const statuses = await Promise.all(
    created.flatMap((id, i) => {
      const url = urls[(i + 1) % urls.length]!
      const writes = [send(`${url}/book/${id}`, 'PUT', { year: 1000 + i })]
      if (i % 3 === 0) writes.push(send(`${url}/book/${id}`, 'DELETE'))
      return writes
    })
  )
  return created.length + statuses.filter((status) => status === 200).length
}

describeEachEngineServer('GET /books/changes', ({ server }) => {
  test('every change of a burst of concurrent writes arrives exactly once, in order; a subscriber cut off and resumed misses nothing', async () => {
    const { url } = server()
    const whole = await openFeed(url, auth)
    const cut = await openFeed(url, auth)
    const writing = burst([url], 50)
    const seen = await cut.waitFor(5)
    cut.close()
    const changes = await writing
    const all = seqsOf(await whole.waitFor(changes))
    const first = all[0]!
    assert.deepEqual(all, Array.from({ length: changes }, (_, i) => first + i))
    const lastSeen = seen.at(-1)!.lastEventId
    const resumed = await openFeed(url, { ...auth, 'last-event-id': lastSeen })
    const rest = seqsOf(await resumed.waitFor(all.at(-1)! - Number(lastSeen)))
    assert.deepEqual([...seqsOf(seen), ...rest], all)
    whole.close()
    resumed.close()
  })
})

describe('GET /books/changes and SIGTERM (real process)', () => {
  for (const { engine, skip } of engines) {
    test(`[${engine}] SIGTERM ends every stream and the process exits 0 promptly`, { skip }, async () => {
      const directory = temporaryDirectory()
      const database = engine === 'postgres' ? await createPostgresDatabase() : undefined
      try {
        const server = await startServer({ dataDirectory: directory, env: database ? { DATABASE_URL: database.url } : {} })
        const feeds = await Promise.all([1, 2, 3].map(() => openFeed(server.url, auth)))
        assert.ok(feeds.every((feed) => feed.status === 200))
        const stopping = Date.now()
        assert.equal(await server.stop(), 0)
        await Promise.all(feeds.map((feed) => feed.ended))
        const took = Date.now() - stopping
        assert.ok(took < 3000, `stopped in ${took} ms`)
      } finally {
        await database?.drop()
        removeDirectory(directory)
      }
    })
  }
})

// Across processes: every process reads the same durable log (docs/change-feed.md "Change log"), woken by
// LISTEN/NOTIFY on PostgreSQL and by `PRAGMA data_version` on one SQLite file.
const postgres = engines.find(({ engine }) => engine === 'postgres')!

// Directly and through PgBouncer in transaction mode (docs/several-instances.md "Behind PgBouncer").
for (const through of ['', ' through PgBouncer'] as const) {
  test(`[postgres] subscribers on two instances${through} get every change of a burst made through both, exactly once, in order, within 1 s`, { skip: through ? pgbouncerSkipReason : postgres.skip }, async () => {
    const directories = [temporaryDirectory(), temporaryDirectory()]
    const database = await createPostgresDatabase()
    const bouncer = through ? await startPgBouncer({ poolSize: 4, connectQuery: BOUND_CONNECT_QUERY }) : undefined
    const env: Record<string, string> = bouncer ? { DATABASE_URL: bouncer.through(database.url), DATABASE_DIRECT_URL: database.url } : { DATABASE_URL: database.url }
    const servers: RunningServer[] = []
    try {
      for (const directory of directories) servers.push(await startServer({ dataDirectory: directory, env }))
      const urls = servers.map((server) => server.url)
      const feeds = await Promise.all(urls.map((url) => openFeed(url, auth)))
      const changes = await burst(urls, 60)
      const streams = await Promise.all(feeds.map((feed) => feed.waitFor(changes, 1000 + changes * 20)))
      const first = seqsOf(streams[0]!)
      assert.deepEqual(first, Array.from({ length: changes }, (_, i) => first[0]! + i))
      assert.deepEqual(streams[1], streams[0])
      feeds.forEach((feed) => feed.close())
    } finally {
      for (const server of servers) assert.equal(await server.stop(), 0)
      await bouncer?.stop()
      await database.drop()
      directories.forEach(removeDirectory)
    }
  })
}

test('[sqlite] a subscriber gets the changes made through another process on the same file within 1 s', async () => {
  const directory = temporaryDirectory()
  const servers: RunningServer[] = []
  try {
    servers.push(await startServer({ dataDirectory: directory }))
    servers.push(await startServer({ dataDirectory: directory }))
    const [one, two] = servers.map((server) => server.url) as [string, string]
    const feed = await openFeed(one, auth)
    const changes = await burst([two], 30)
    const events = await feed.waitFor(changes, 1000 + changes * 20)
    const numbers = seqsOf(events)
    assert.deepEqual(numbers, Array.from({ length: changes }, (_, i) => numbers[0]! + i))
    feed.close()
  } finally {
    for (const server of servers) assert.equal(await server.stop(), 0)
    removeDirectory(directory)
  }
})

test('[sqlite] WORKERS=2: subscribers on the shared port get every change of a burst, whichever worker took the writes, exactly once, in order', async () => {
  const directory = temporaryDirectory()
  const server = await startServer({ dataDirectory: directory, env: { WORKERS: '2' } })
  try {
    // Several subscribers, so that (connections being taken by either worker) both workers serve some.
    const feeds = await Promise.all(Array.from({ length: 4 }, () => openFeed(server.url, auth)))
    const changes = await burst([server.url], 30)
    const streams = await Promise.all(feeds.map((feed) => feed.waitFor(changes, 1000 + changes * 20)))
    const first = seqsOf(streams[0]!)
    assert.deepEqual(first, Array.from({ length: changes }, (_, i) => first[0]! + i))
    for (const stream of streams.slice(1)) assert.deepEqual(stream, streams[0])
    feeds.forEach((feed) => feed.close())
  } finally {
    assert.equal(await server.stop(), 0)
    removeDirectory(directory)
  }
})

/** One value of the service's /metrics, e.g. `feed_events_sent_total`. */
async function metricOf(url: string, name: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text()
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${name} `))
  return Number(line?.split(' ')[1])
}

const catchUpChanges = 40_000

test(`[sqlite] 20 subscribers reading as fast as they can catch up ${catchUpChanges.toLocaleString('en')} changes: the service answers other requests meanwhile, and each gets them all`, async () => {
  const directory = temporaryDirectory()
  const changes = catchUpChanges
  const subscribers = 20
  await seedSqlite(join(directory, 'books.db'), changes)
  const server = await startServer({ dataDirectory: directory })
  const sockets: Socket[] = []
  try {
    // Raw connections that take every byte as it comes: the service never has to wait for them.
    // Each with a token of its own subject (FEED_MAX_STREAMS_PER_SUBJECT would refuse some of one).
    const heads = Array.from({ length: subscribers }, (_, n) => new Promise<void>((resolve) => {
      const socket = connect(server.port, '127.0.0.1')
      sockets.push(socket)
      socket.on('error', () => {})
      socket.once('data', () => resolve())
      socket.on('data', () => {})
      socket.write(`GET /books/changes?after=0 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${signToken({ sub: `reader-${n}` })}\r\n\r\n`)
      socket.once('data', (chunk: Buffer) => assert.match(chunk.toString('latin1'), /^HTTP\/1\.1 200 /))
    }))
    await Promise.all(heads)
    // Answered while the catch-ups are still running: they yield between pages. A catch-up that
    // never yields to the event loop sends every event (20 × the changes) before this request is read.
    const sentMeanwhile = await metricOf(server.url, 'feed_events_sent_total')
    assert.ok(sentMeanwhile < changes * subscribers, `${sentMeanwhile} events sent before /metrics was answered`)
    await eventually('every subscriber caught up', async () => (await metricOf(server.url, 'feed_events_sent_total')) >= changes * subscribers, 60_000)
    assert.equal(await metricOf(server.url, 'feed_events_sent_total'), changes * subscribers)
    assert.equal(await metricOf(server.url, 'feed_dropped_total'), 0)
  } finally {
    for (const socket of sockets) socket.destroy()
    assert.equal(await server.stop(), 0)
    removeDirectory(directory)
  }
})
