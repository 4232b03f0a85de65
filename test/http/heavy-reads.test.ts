import assert from 'node:assert/strict'
import { EventEmitter, once } from 'node:events'
import { connect } from 'node:net'
import { after, describe, test } from 'node:test'
import type { FastifyInstance } from 'fastify'
import type { Database } from '../../src/storage/contracts/database.js'
import { SqliteDatabase } from '../../src/storage/sqlite/sqlite-database.js'
import type { AppConfig } from '../../src/app.js'
import { authHeaders, buildTestApp } from '../support/app.js'

const auth = authHeaders()

/**
 * A SQLite database whose book histories are held until `open()`: a heavy read that stays in
 * flight as long as the test wants, whatever the machine's speed. `reading` tells of each history
 * read that reached the store.
 */
async function gatedDatabase(): Promise<{ database: Database; open(): void; reading: EventEmitter }> {
  const inner = await SqliteDatabase.open(':memory:')
  const reading = new EventEmitter()
  let opened!: () => void
  const gate = new Promise<void>((resolve) => (opened = resolve))
  const database: Database = new Proxy(inner, {
    get(target, property, receiver) {
      if (property === 'books') return receiver
      if (property === 'history') {
        return async (...args: Parameters<typeof inner.history>) => {
          reading.emit('history')
          await gate
          return target.history(...args)
        }
      }
      const value = Reflect.get(target, property, target) as unknown
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value
    }
  })
  return { database, open: opened, reading }
}

/** A started app on a gated database, with `overrides`; its base URL. */
async function startApp(overrides: Partial<AppConfig>) {
  const gated = await gatedDatabase()
  const app: FastifyInstance = await buildTestApp(overrides, gated.database)
  const url = await app.listen({ port: 0, host: '127.0.0.1' })
  return { ...gated, app, url }
}

/** Stores `book` through `POST /book` of the app at `url` (asserting its 201); the stored book's id. */
async function createBook(url: string, book: { title: string; author: string; year: number }): Promise<{ id: number }> {
  const created = await fetch(`${url}/book`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify(book) })
  assert.equal(created.status, 201)
  return ((await created.json()) as { data: { id: number } }).data
}

/** `fetch` with the test token; resolves with the status, the headers and the parsed body. */
async function get(url: string, init: RequestInit = {}) {
  const response = await fetch(url, { ...init, headers: { ...auth, ...(init.headers as Record<string, string>) } })
  return { status: response.status, headers: response.headers, body: (await response.json()) as { status: number; message: string; data: unknown } }
}

/** Starts `count` history reads and resolves, with their answers' promises, once each reached the store. */
async function historiesInFlight(started: Awaited<ReturnType<typeof startApp>>, id: number, count: number) {
  let reached = 0
  const allReached = new Promise<void>((resolve) => {
    const onRead = () => {
      if (++reached < count) return
      started.reading.off('history', onRead)
      resolve()
    }
    started.reading.on('history', onRead)
  })
  const answers = Array.from({ length: count }, () => get(`${started.url}/book/${id}/history`))
  await allReached
  return answers
}

/** Tracks whether a promise has settled, without waiting for it. */
function settledFlag(promise: Promise<unknown>): { settled: boolean } {
  const flag = { settled: false }
  void promise.finally(() => (flag.settled = true)).catch(() => {})
  return flag
}

describe('fair share of heavy reads (docs/operations.md "Bounded reads")', () => {
  const apps: FastifyInstance[] = []
  after(async () => {
    for (const app of apps) await app.close()
  })

  test('with HEAVY_READS heavy reads in flight, a point read and a write answer before them; a further search waits its turn', async () => {
    const started = await startApp({ HEAVY_READS: 2, HEAVY_READ_WAIT: 60 })
    apps.push(started.app)
    const book = await createBook(started.url, { title: 'Dune', author: 'Frank Herbert', year: 1965 })

    const heavy = await historiesInFlight(started, book.id, 2)
    const flags = heavy.map(settledFlag)
    // A third heavy read (a search) finds no turn: it waits, and never reaches the store meanwhile.
    const search = get(`${started.url}/books?q=dune`)
    const searchFlag = settledFlag(search)

    const point = await get(`${started.url}/book/${book.id}`)
    assert.equal(point.status, 200)
    const write = await fetch(`${started.url}/book/${book.id}`, {
      method: 'PUT', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ year: 1966 })
    })
    assert.equal(write.status, 200)
    const page = await get(`${started.url}/books?limit=10`)
    assert.equal(page.status, 200, 'a page without q is not a heavy read')
    assert.deepEqual(flags.map((flag) => flag.settled), [false, false], 'the heavy reads are still in flight')
    assert.equal(searchFlag.settled, false, 'the search waits for a turn')

    started.open()
    for (const answer of await Promise.all(heavy)) assert.equal(answer.status, 200)
    const searched = await search
    assert.equal(searched.status, 200)
    assert.deepEqual((searched.body.data as Array<{ id: number }>).map((found) => found.id), [book.id])
  })

  test('a heavy read that gets no turn within HEAVY_READ_WAIT answers 503 Service unavailable with Retry-After', async () => {
    const started = await startApp({ HEAVY_READS: 1, HEAVY_READ_WAIT: 0.05 })
    apps.push(started.app)
    const book = await createBook(started.url, { title: 'Emma', author: 'Jane Austen', year: 1815 })
    const heavy = await historiesInFlight(started, book.id, 1)

    const turnedAway = await get(`${started.url}/books`)
    assert.equal(turnedAway.status, 503)
    assert.deepEqual(turnedAway.body, { status: 503, message: 'Service unavailable', data: null })
    assert.equal(turnedAway.headers.get('retry-after'), '1')

    started.open()
    assert.equal((await heavy[0]!).status, 200)
    // The turn was given back: the next heavy read runs.
    assert.equal((await get(`${started.url}/books`)).status, 200)
  })

  test('a page filtered by title or author takes a turn; an indexed page, with its count too, does not', async () => {
    const started = await startApp({ HEAVY_READS: 1, HEAVY_READ_WAIT: 0.05 })
    apps.push(started.app)
    const book = await createBook(started.url, { title: 'Persuasion', author: 'Jane Austen', year: 1817 })
    const heavy = await historiesInFlight(started, book.id, 1)

    for (const query of ['title=persuasion&limit=10', 'author=austen&limit=10', 'title=persuasion&limit=10&count=true', 'year=1817&author=jane&limit=10']) {
      const turnedAway = await get(`${started.url}/books?${query}`)
      assert.equal(turnedAway.status, 503, query)
      assert.equal(turnedAway.headers.get('retry-after'), '1', query)
    }
    for (const query of ['limit=10', 'year=1817&limit=10', 'sort=title&limit=10', 'year_min=1800&year_max=1900&limit=10', 'limit=10&count=true', 'year=1817&limit=10&count=true']) {
      const page = await get(`${started.url}/books?${query}`)
      assert.equal(page.status, 200, query)
      assert.deepEqual((page.body.data as Array<{ id: number }>).map((found) => found.id), [book.id], query)
    }

    started.open()
    assert.equal((await heavy[0]!).status, 200)
    const filtered = await get(`${started.url}/books?title=persuasion&limit=10&count=true`)
    assert.equal(filtered.status, 200)
    assert.equal(filtered.headers.get('x-total-count'), '1')
  })

  test('a client that leaves while waiting gives its place back', async () => {
    const started = await startApp({ HEAVY_READS: 1, HEAVY_READ_WAIT: 60 })
    apps.push(started.app)
    const book = await createBook(started.url, { title: 'Ulysses', author: 'James Joyce', year: 1922 })
    const heavy = await historiesInFlight(started, book.id, 1)
    // A client that sends a search and closes its connection once the service has it.
    const arrived = once(started.app.server, 'request')
    const { port } = new URL(started.url)
    const socket = connect(Number(port), '127.0.0.1')
    socket.write(`GET /books?q=ulysses HTTP/1.1\r\nHost: localhost\r\nAuthorization: ${auth.authorization}\r\n\r\n`)
    await arrived
    socket.destroy()
    started.open()
    assert.equal((await heavy[0]!).status, 200)
    // Had the abandoned search kept its place or a turn, this one would wait 60 s.
    assert.equal((await get(`${started.url}/books?q=ulysses`)).status, 200)
  })
})
