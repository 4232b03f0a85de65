import assert from 'node:assert/strict'
import { connect } from 'node:net'
import { test } from 'node:test'
import type { FastifyInstance } from 'fastify'
import type { ChangeLog } from '../../../src/storage/contracts/change-log.js'
import type { Database } from '../../../src/storage/contracts/database.js'
import { SqliteDatabase } from '../../../src/storage/sqlite/sqlite-database.js'
import { authHeaders, buildTestApp, signToken } from '../../support/app.js'
import { createAccount, login } from '../../support/accounts.js'
import { openFeed, seqsOf } from '../../support/change-feed.js'
import { eventually } from '../../support/client.js'
import { describeEachEngine } from '../../support/suite.js'
import { UNKNOWN_CHANGE_CONTEXT } from '../../../src/storage/contracts/change-log.js'

const auth = authHeaders()

/** Listens on a free port of 127.0.0.1 and returns the base URL. */
async function listening(app: FastifyInstance): Promise<string> {
  await app.listen({ port: 0, host: '127.0.0.1' })
  const address = app.server.address() as { port: number }
  return `http://127.0.0.1:${address.port}`
}

async function create(app: FastifyInstance, title: string) {
  const response = await app.inject({ method: 'POST', url: '/book', headers: auth, payload: { title, author: 'A', year: 2000 } })
  assert.equal(response.statusCode, 201, response.body)
  return response.json().data as { id: number; title: string; author: string; year: number }
}

/**
 * A burst of concurrent writes: creates, then updates and deletes of what was created, all at
 * once. Resolves with how many changes they made (updates and deletes that found their book).
 */
async function burst(app: FastifyInstance, books: number): Promise<number> {
  const created = await Promise.all(Array.from({ length: books }, (_, i) => create(app, `Burst ${i}`)))
  const writes = await Promise.all(
    created.flatMap((book, i) => [
      app.inject({ method: 'PUT', url: `/book/${book.id}`, headers: auth, payload: { year: 1000 + i } }),
      i % 3 === 0 ? app.inject({ method: 'DELETE', url: `/book/${book.id}`, headers: auth }) : undefined
    ]).filter((write) => write !== undefined)
  )
  return created.length + writes.filter((response) => response.statusCode === 200).length
}

async function metric(app: FastifyInstance, name: string): Promise<number> {
  const text = (await app.inject({ url: '/metrics' })).body
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${name} `))
  return Number(line?.split(' ')[1])
}

describeEachEngine('GET /books/changes', ({ withFreshApp }) => {
  test('401 and 403 in the envelope before any stream; a reader may subscribe; the stream starts with retry:', async () => {
    await withFreshApp(async (app) => {
      const url = await listening(app)
      const none = await openFeed(url)
      assert.equal(none.status, 401)
      assert.deepEqual(JSON.parse(await none.body()), { status: 401, message: 'Authorization token required', data: null })
      const unknownRole = await openFeed(url, authHeaders(signToken({ role: 'nobody' })))
      assert.equal(unknownRole.status, 403)
      assert.deepEqual(JSON.parse(await unknownRole.body()), { status: 403, message: 'Forbidden', data: null })
      const badAfter = await openFeed(url, auth, '?after=x')
      assert.equal(badAfter.status, 400)
      assert.deepEqual(JSON.parse(await badAfter.body()), { status: 400, message: 'Invalid input', data: null })

      const reader = await openFeed(url, authHeaders(signToken({ role: 'reader' })))
      assert.equal(reader.status, 200)
      assert.equal(reader.headers['content-type'], 'text/event-stream')
      assert.equal(reader.headers['cache-control'], 'no-store')
      assert.ok(reader.headers['x-request-id'], 'the pipeline headers are sent with the stream')
      const book = await create(app, 'Seen live')
      const [event] = await reader.waitFor(1)
      assert.match(reader.text(), /^retry: \d+\n\n/)
      assert.equal(event!.type, 'created')
      assert.deepEqual(JSON.parse(event!.data), { id: book.id, book })
      // The book exactly as GET /book/{id} answers it.
      const got = await app.inject({ url: `/book/${book.id}`, headers: auth })
      assert.deepEqual(JSON.parse(event!.data).book, got.json().data)
      reader.close()
    })
  })

  test('every change of a burst of concurrent creates, updates and deletes arrives exactly once, in order, to every subscriber', async () => {
    await withFreshApp(async (app) => {
      const url = await listening(app)
      await create(app, 'Before anyone subscribed')
      // Numbered (PostgreSQL numbers shortly after the commit: docs/change-feed.md "Change log"), so "now" is past it.
      const numbered = await openFeed(url, auth, '?after=0')
      await numbered.waitFor(1)
      numbered.close()
      const [first, second] = await Promise.all([openFeed(url, auth), openFeed(url, auth)])
      const changes = await burst(app, 60)
      for (const feed of [first, second]) {
        const events = await feed.waitFor(changes)
        const numbers = seqsOf(events)
        // From now: the change made before subscribing is not sent; then 2, 3, … with no gap.
        assert.deepEqual(numbers, Array.from({ length: changes }, (_, i) => i + 2))
        assert.deepEqual(new Set(events.map((event) => event.type)), new Set(['created', 'updated', 'deleted']))
        for (const event of events) {
          const data = JSON.parse(event.data) as { id: number; book: unknown }
          assert.equal(typeof data.id, 'number')
          assert.equal(data.book === null, event.type === 'deleted')
        }
      }
      // The last event of each book is its state now.
      const last = new Map<number, unknown>()
      for (const event of first.events) {
        const data = JSON.parse(event.data) as { id: number; book: unknown }
        last.set(data.id, data.book)
      }
      for (const [id, book] of last) {
        const response = await app.inject({ url: `/book/${id}`, headers: auth })
        assert.deepEqual(book, response.statusCode === 404 ? null : response.json().data)
      }
      first.close()
      second.close()
    })
  })

  test('a subscriber cut off mid-burst and resumed with Last-Event-ID misses nothing and sees nothing twice', async () => {
    await withFreshApp(async (app) => {
      const url = await listening(app)
      const feed = await openFeed(url, auth, '?after=0')
      const writing = burst(app, 40)
      const seen = await feed.waitFor(10)
      feed.close()
      const changes = await writing
      const lastSeen = seen.at(-1)!.lastEventId
      const resumed = await openFeed(url, { ...auth, 'last-event-id': lastSeen })
      const rest = await resumed.waitFor(changes - Number(lastSeen))
      await create(app, 'After the burst')
      const all = [...seqsOf(seen), ...seqsOf(await resumed.waitFor(rest.length + 1))]
      assert.deepEqual(all, Array.from({ length: changes + 1 }, (_, i) => i + 1))
      resumed.close()
    })
  })

  test('?after=N starts after N; an id never issued or not a number gets one reset (id: the last change), then live ones', async () => {
    await withFreshApp(async (app) => {
      const url = await listening(app)
      for (let i = 0; i < 3; i++) await create(app, `Book ${i}`)
      // On PostgreSQL the changes are numbered just after their commit: wait until all three are.
      const numbered = await openFeed(url, auth, '?after=0')
      await numbered.waitFor(3)
      numbered.close()
      const after = await openFeed(url, auth, '?after=1')
      assert.deepEqual(seqsOf(await after.waitFor(2)), [2, 3])
      for (const lastEventId of ['999999', 'not-a-number']) {
        const feed = await openFeed(url, { ...auth, 'last-event-id': lastEventId })
        const [reset] = await feed.waitFor(1)
        assert.deepEqual(reset, { type: 'reset', data: '{"id":null,"book":null}', lastEventId: '3' })
        feed.close()
      }
      const feed = await openFeed(url, { ...auth, 'last-event-id': '999999' })
      await feed.waitFor(1)
      await create(app, 'Live after the reset')
      const events = await feed.waitFor(2)
      assert.deepEqual(seqsOf(events), [3, 4])
      assert.equal(events[1]!.type, 'created')
      feed.close()
      after.close()
    })
  })

  test('a token that expires ends its stream at its expiry', async () => {
    await withFreshApp(async (app) => {
      const url = await listening(app)
      const feed = await openFeed(url, authHeaders(signToken({}, { expiresIn: 2000 })))
      assert.equal(feed.status, 200)
      const opened = Date.now()
      await feed.ended
      const took = Date.now() - opened
      assert.ok(took >= 1000 && took < 5000, `ended after ${took} ms`)
    })
  })

  for (const change of ['role', 'delete'] as const) {
    test(`a revoked token (account ${change === 'role' ? 'role changed' : 'deleted'}) ends its stream within the revocation bound`, async () => {
      await withFreshApp(async (app) => {
        const url = await listening(app)
        await createAccount(app, 'watcher', 'reader')
        const feed = await openFeed(url, authHeaders(await login(app, 'watcher')))
        assert.equal(feed.status, 200)
        const admin = authHeaders(signToken())
        const response =
          change === 'role'
            ? await app.inject({ method: 'PUT', url: '/users/watcher', headers: admin, payload: { role: 'editor' } })
            : await app.inject({ method: 'DELETE', url: '/users/watcher', headers: admin })
        assert.equal(response.statusCode, 200, response.body)
        const changed = Date.now()
        await feed.ended
        assert.ok(Date.now() - changed < 5000)
      })
    })
  }

  test('a revoked API token ends its stream within the revocation bound (docs/api-tokens.md)', async () => {
    await withFreshApp(async (app) => {
      const url = await listening(app)
      await createAccount(app, 'program', 'reader')
      const created = await app.inject({ method: 'POST', url: '/tokens', headers: authHeaders(signToken({ sub: 'program' })), payload: { name: 'watch' } })
      const { id, token } = created.json().data
      const feed = await openFeed(url, authHeaders(token))
      assert.equal(feed.status, 200)
      const revoked = await app.inject({ method: 'DELETE', url: `/tokens/${id}`, headers: authHeaders(signToken()) })
      assert.equal(revoked.statusCode, 200, revoked.body)
      const changed = Date.now()
      await feed.ended
      assert.ok(Date.now() - changed < 5000)
    })
  })

  test('past FEED_MAX_SUBSCRIBERS: 503 Service unavailable in the envelope; a place freed is taken again', async () => {
    await withFreshApp(
      async (app) => {
        const url = await listening(app)
        const open = [await openFeed(url, auth), await openFeed(url, auth)]
        const refused = await openFeed(url, auth)
        assert.equal(refused.status, 503)
        assert.deepEqual(JSON.parse(await refused.body()), { status: 503, message: 'Service unavailable', data: null })
        assert.equal(await metric(app, 'feed_subscribers'), 2)
        open[0]!.close()
        await open[0]!.ended
        for (let i = 0; i < 50 && (await metric(app, 'feed_subscribers')) !== 1; i++) await new Promise((r) => setTimeout(r, 20))
        const again = await openFeed(url, auth)
        assert.equal(again.status, 200)
        again.close()
        open[1]!.close()
      },
      { FEED_MAX_SUBSCRIBERS: 2 }
    )
  })

  test('a heartbeat comment every FEED_HEARTBEAT seconds', async () => {
    await withFreshApp(
      async (app) => {
        const url = await listening(app)
        const feed = await openFeed(url, auth)
        await new Promise((resolve) => setTimeout(resolve, 2500))
        assert.match(feed.text(), /\n:\n\n/)
        assert.equal(feed.events.length, 0)
        feed.close()
      },
      { FEED_HEARTBEAT: 1 }
    )
  })

  test('closing the app ends every stream, promptly', async () => {
    await withFreshApp(async (app) => {
      const url = await listening(app)
      const feeds = await Promise.all([openFeed(url, auth), openFeed(url, auth)])
      const closing = Date.now()
      await app.close()
      await Promise.all(feeds.map((feed) => feed.ended))
      assert.ok(Date.now() - closing < 2000)
    })
  })
})

/** `database` whose change log reports everything up to `trimmedThrough` as removed by retention. */
function withTrimmedLog(database: Database, trimmedThrough: number): Database {
  const changes = database.changes
  const trimmed: ChangeLog = {
    changesAfter: (after, limit) => changes.changesAfter(Math.max(after, trimmedThrough), limit),
    horizon: async () => ({ ...(await changes.horizon()), trimmedThrough }),
    onChanges: (listener) => changes.onChanges(listener)
  }
  return new Proxy(database, {
    get(target, property) {
      if (property === 'changes') return trimmed
      const value = Reflect.get(target, property) as unknown
      return typeof value === 'function' ? value.bind(target) : value
    }
  })
}

test('a Last-Event-ID older than the changes kept gets reset, then live ones; one just at the edge resumes', async () => {
  const database = await SqliteDatabase.open(':memory:')
  const app = await buildTestApp({}, withTrimmedLog(database, 3))
  try {
    const url = await listening(app)
    for (let i = 0; i < 5; i++) await create(app, `Book ${i}`)
    const old = await openFeed(url, { ...auth, 'last-event-id': '2' })
    assert.deepEqual(await old.waitFor(1), [{ type: 'reset', data: '{"id":null,"book":null}', lastEventId: '5' }])
    const edge = await openFeed(url, { ...auth, 'last-event-id': '3' })
    assert.deepEqual(seqsOf(await edge.waitFor(2)), [4, 5])
    await create(app, 'Live')
    assert.deepEqual(seqsOf(await old.waitFor(2)), [5, 6])
    assert.deepEqual(seqsOf(await edge.waitFor(3)), [4, 5, 6])
    old.close()
    edge.close()
  } finally {
    await app.close()
  }
})

test('a stalled reader (never reads) is dropped and counted; the others get everything', async () => {
  const database = await SqliteDatabase.open(':memory:')
  const app = await buildTestApp({ FEED_BUFFER_BYTES: 65_536 }, database)
  try {
    const url = await listening(app)
    const { port } = new URL(url)
    const stalled = connect(Number(port), '127.0.0.1')
    await new Promise((resolve) => stalled.once('connect', resolve))
    stalled.pause()
    stalled.write(`GET /books/changes HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${auth.authorization}\r\n\r\n`)
    const reading = await openFeed(url, auth)
    for (let i = 0; i < 50 && (await metric(app, 'feed_subscribers')) !== 2; i++) await new Promise((r) => setTimeout(r, 20))
    assert.equal(await metric(app, 'feed_subscribers'), 2)
    // About 1 KiB per event: 30 MiB in all, far past what the kernel buffers for the stalled socket.
    const title = 'x'.repeat(500)
    const author = 'y'.repeat(500)
    const total = 30_000
    for (let start = 0; start < total; start += 1000) {
      await Promise.all(Array.from({ length: 1000 }, () => database.books.create({ title, author, year: 1 }, UNKNOWN_CHANGE_CONTEXT)))
      await reading.waitFor(start + 1000, 20_000)
    }
    assert.equal(await metric(app, 'feed_dropped_total'), 1)
    assert.equal(await metric(app, 'feed_subscribers'), 1)
    assert.deepEqual(seqsOf(reading.events), Array.from({ length: total }, (_, i) => i + 1))
    reading.close()
    stalled.destroy()
  } finally {
    await app.close()
  }
})

test('with an empty log, a Last-Event-ID gets a reset without an id (sequence numbers are positive), then the sequence number 0 alone; HEAD answers the head only', async () => {
  const app = await buildTestApp()
  try {
    const url = await listening(app)
    const feed = await openFeed(url, { ...auth, 'last-event-id': '7' })
    assert.deepEqual(await feed.waitFor(1), [{ type: 'reset', data: '{"id":null,"book":null}', lastEventId: '' }])
    // The reset carries no id; the stream then sets its sequence number alone (no event): from the first change.
    await eventually('the sequence number follows the reset', async () => /event: reset\n.*\n\nid: 0\n\n/.test(feed.text()))
    feed.close()
    const head = await app.inject({ method: 'HEAD', url: '/books/changes', headers: auth })
    assert.equal(head.statusCode, 200)
    assert.equal(head.headers['content-type'], 'text/event-stream')
    assert.equal(head.body, '')
  } finally {
    await app.close()
  }
})

/** Resolves true when `ended` settles within `ms`, false otherwise. */
function within(ended: Promise<void>, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms)
    void ended.then(() => (clearTimeout(timer), resolve(true)))
  })
}

test('FEED_MAX_STREAMS_PER_SUBJECT: one more stream of a subject gets 503 in the envelope; other subjects, and a token without sub on its own, still subscribe; a HEAD takes no place', async () => {
  const app = await buildTestApp({ FEED_MAX_STREAMS_PER_SUBJECT: 2 })
  const opened: Array<Awaited<ReturnType<typeof openFeed>>> = []
  const open = async (headers: Record<string, string>) => {
    const feed = await openFeed(await url, headers)
    opened.push(feed)
    return feed
  }
  const url = listening(app)
  try {
    for (let i = 0; i < 3; i++) {
      const head = await app.inject({ method: 'HEAD', url: '/books/changes', headers: authHeaders(signToken({ sub: 'alice' })) })
      assert.equal(head.statusCode, 200)
    }
    // Two tokens of one account (different claims, same sub): one subject.
    assert.equal((await open(authHeaders(signToken({ sub: 'alice', n: 1 })))).status, 200)
    assert.equal((await open(authHeaders(signToken({ sub: 'alice', n: 2 })))).status, 200)
    const refused = await open(authHeaders(signToken({ sub: 'alice', n: 3 })))
    assert.equal(refused.status, 503)
    assert.deepEqual(JSON.parse(await refused.body()), { status: 503, message: 'Service unavailable', data: null })
    assert.equal((await open(authHeaders(signToken({ sub: 'bob' })))).status, 200)
    const anonymous = authHeaders(signToken({ role: 'reader' }))
    assert.equal((await open(anonymous)).status, 200)
    assert.equal((await open(anonymous)).status, 200)
    assert.equal((await open(anonymous)).status, 503)
    assert.equal((await open(authHeaders(signToken({ role: 'reader', n: 2 })))).status, 200)
    // A closed stream gives its subject's place back.
    opened[0]!.close()
    await opened[0]!.ended
    await eventually('the place is free again', async () => {
      const again = await open(authHeaders(signToken({ sub: 'alice', n: 4 })))
      return again.status === 200
    })
  } finally {
    for (const feed of opened) feed.close()
    await app.close()
  }
})

test('FEED_MAX_STREAM_AGE: the stream ends cleanly at its age; resumed with Last-Event-ID it misses nothing', async () => {
  const app = await buildTestApp({ FEED_MAX_STREAM_AGE: 1 })
  try {
    const url = await listening(app)
    const feed = await openFeed(url, auth)
    await create(app, 'Before the end')
    const [first] = await feed.waitFor(1)
    assert.ok(await within(feed.ended, 5000), 'the stream ended within 5 s')
    assert.equal(feed.events.length, 1)
    await create(app, 'While away')
    const resumed = await openFeed(url, { ...auth, 'last-event-id': first!.lastEventId })
    assert.equal(resumed.status, 200)
    const [missed] = await resumed.waitFor(1)
    assert.equal(JSON.parse(missed!.data).book.title, 'While away')
    assert.equal(Number(missed!.lastEventId), Number(first!.lastEventId) + 1)
    resumed.close()
  } finally {
    await app.close()
  }
})

test('a token past its exp but inside the 30 s clock leeway: other routes take it, the feed answers 401 Invalid token before any stream', async () => {
  const app = await buildTestApp()
  try {
    const url = await listening(app)
    const late = authHeaders(signToken({ sub: 'late', exp: Math.floor(Date.now() / 1000) - 5 }))
    assert.equal((await app.inject({ url: '/books', headers: late })).statusCode, 200)
    const feed = await openFeed(url, late)
    assert.equal(feed.status, 401)
    assert.deepEqual(JSON.parse(await feed.body()), { status: 401, message: 'Invalid token', data: null })
    // A token whose exp is still ahead subscribes (its stream ends at the exp).
    const soon = await openFeed(url, authHeaders(signToken({ sub: 'soon', exp: Math.floor(Date.now() / 1000) + 60 })))
    assert.equal(soon.status, 200)
    soon.close()
  } finally {
    await app.close()
  }
})
