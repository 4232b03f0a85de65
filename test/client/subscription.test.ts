import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { BookServiceError, createClient, type BookChangeEvent } from '../../src/client/index.js'
import { reconnectDelay } from '../../src/client/subscription.js'
import { envelopeAnswer, eventStream, scriptedFetch } from '../support/scripted-fetch.js'

/**
 * Subscribes with a client on `fetch` until `done` says so (or the subscription settles); the
 * waits are recorded, not waited out.
 */
async function follow(fetch: typeof globalThis.fetch, done: (changes: BookChangeEvent[], waits: number[]) => boolean, onOpen?: () => void) {
  const changes: BookChangeEvent[] = []
  const waits: number[] = []
  const reconnects: number[] = []
  const controller = new AbortController()
  let finish!: () => void
  const finished = new Promise<void>((resolve) => (finish = resolve))
  const following = createClient({ baseUrl: 'http://feed.test', token: 'a.b.c', fetch, cache: 'no-store' }).subscribe({
    signal: controller.signal,
    onChange: (change) => (changes.push(change), done(changes, waits) && finish()),
    onReconnect: (_reason, delayMs) => reconnects.push(delayMs),
    wait: async (ms) => {
      waits.push(ms)
      if (done(changes, waits)) finish()
    },
    ...(onOpen === undefined ? {} : { onOpen })
  })
  let outcome: unknown
  let stuck: ReturnType<typeof setTimeout> | undefined
  await Promise.race([
    finished,
    following.then(
      () => (outcome = 'resolved'),
      (error: unknown) => (outcome = error)
    ),
    new Promise((_, reject) => (stuck = setTimeout(() => reject(new Error(`stuck: ${JSON.stringify({ changes, waits })}`)), 5000)))
  ])
  clearTimeout(stuck)
  controller.abort()
  return { changes, waits, reconnects, outcome }
}

describe('subscribe: the change feed followed by the client', () => {
  test('reconnectDelay: the retry doubled per break in a row, at most 30 s, between half and all of it at random', () => {
    assert.equal(reconnectDelay(1000, 1, () => 0), 500)
    assert.equal(reconnectDelay(1000, 1, () => 1), 1000)
    assert.equal(reconnectDelay(1000, 3, () => 1), 4000)
    assert.equal(reconnectDelay(2500, 2, () => 0.5), 3750)
    assert.equal(reconnectDelay(1000, 10, () => 1), 30_000)
    assert.equal(reconnectDelay(1000, 10, () => 0), 15_000)
    for (let index = 0; index < 100; index++) {
      const delay = reconnectDelay(1000, 2)
      assert.ok(Number.isInteger(delay) && delay >= 1000 && delay <= 2000, `${delay}`)
    }
  })

  test('wait: told each delay (the one onReconnect reports); 5xx and network failures are retried, the delay growing', async () => {
    const { fetch, requests } = scriptedFetch([
      () => eventStream('retry: 2000\nid: 4\n\n'),
      () => envelopeAnswer(503, 'Service unavailable'),
      () => new Response('<html>Bad gateway</html>', { status: 502, headers: { 'content-type': 'text/html' } }),
      () => {
        throw new TypeError('fetch failed')
      },
      () => eventStream('id: 5\nevent: created\ndata: {"id":3,"book":{"id":3,"title":"Dune","author":"Frank Herbert","year":1965}}\n\n')
    ])
    const { changes, waits, reconnects } = await follow(fetch, (changes, waits) => changes.length === 1 && waits.length === 5)
    assert.deepEqual(changes, [{ seq: 5, type: 'created', id: 3, book: { id: 3, title: 'Dune', author: 'Frank Herbert', year: 1965 } }])
    assert.deepEqual(reconnects, waits)
    // The stream's retry: 2000, doubling: 2, 4, 8, 16 s, then 30 s at most; each with up to half taken off.
    waits.forEach((wait, index) => {
      const base = Math.min(30_000, 2000 * 2 ** index)
      assert.ok(wait >= base / 2 && wait <= base, `${wait} (break ${index + 1})`)
    })
    assert.equal(requests[0]!.url, 'http://feed.test/books/changes')
    assert.equal(requests[0]!.headers['last-event-id'], undefined)
    // Resumed from the stream's opening id: (no change had arrived yet), then after the change.
    for (const request of requests.slice(1, 5)) assert.equal(request.headers['last-event-id'], '4')
    assert.equal(requests[5]!.headers['last-event-id'], '5')
    for (const request of requests) assert.equal(request.cache, 'no-store')
  })

  test('a stream open 30 s or more was healthy: the next delay starts again from the first; a shorter one does not reset it', async (context) => {
    context.mock.timers.enable({ apis: ['Date'], now: 0 })
    const { fetch } = scriptedFetch([
      () => envelopeAnswer(503, 'Service unavailable'),
      () => envelopeAnswer(503, 'Service unavailable'),
      () => eventStream('id: 1\n\n'), // open for 30 s (onOpen moves the clock), then ended
      () => eventStream('id: 1\n\n') // ended at once
    ])
    let opened = 0
    const { waits } = await follow(
      fetch,
      (_changes, waits) => waits.length === 4,
      () => opened++ === 0 && context.mock.timers.tick(30_000)
    )
    const bases = [1000, 2000, 1000, 2000]
    waits.forEach((wait, index) => assert.ok(wait >= bases[index]! / 2 && wait <= bases[index]!, `${wait} (break ${index + 1})`))
  })

  test('no retry for what reconnecting cannot fix: 403, 404 and a 200 that is not text/event-stream reject with BookServiceError', async () => {
    for (const [answer, status, message] of [
      [() => envelopeAnswer(403, 'Forbidden'), 403, 'Forbidden'],
      [() => envelopeAnswer(404, 'Route not found'), 404, 'Route not found'],
      [() => new Response('<!doctype html><title>Books</title>', { status: 200, headers: { 'content-type': 'text/html' } }), 200, 'Unexpected response'],
      [() => envelopeAnswer(200, 'OK'), 200, 'Unexpected response']
    ] as const) {
      const { fetch, requests } = scriptedFetch([answer])
      const { outcome, waits } = await follow(fetch, () => false)
      assert.ok(outcome instanceof BookServiceError, String(outcome))
      assert.deepEqual([outcome.status, outcome.message], [status, message])
      assert.equal(requests.length, 1)
      assert.deepEqual(waits, [])
    }
  })

  test('fetch is called unbound, as a browser requires of its own (any other `this`: Illegal invocation)', async () => {
    const thisValues: unknown[] = []
    const { fetch } = scriptedFetch([() => envelopeAnswer(404, 'Route not found')])
    const unbound = function (this: unknown, url: string, init: RequestInit) {
      thisValues.push(this)
      return fetch(url, init)
    } as unknown as typeof globalThis.fetch
    const { outcome } = await follow(unbound, () => false)
    assert.ok(outcome instanceof BookServiceError)
    assert.deepEqual(thisValues, [undefined])
  })

  test('events it cannot use are ignored: an unknown type, unreadable data, no book id; a reset needs neither', async () => {
    const { fetch } = scriptedFetch([
      () =>
        eventStream(
          'id: 1\ndata: {"id":1}\n\n' +
            'id: 1\nevent: updated\ndata: not json\n\n' +
            'id: 1\nevent: updated\ndata: {"book":null}\n\n' +
            'id: 1\nevent: reset\ndata\n\n' +
            'id: 2\nevent: deleted\ndata: {"id":7,"book":null}\n\n'
        )
    ])
    const { changes } = await follow(fetch, (changes) => changes.length === 2)
    assert.deepEqual(changes, [
      { seq: 1, type: 'reset', id: null, book: null },
      { seq: 2, type: 'deleted', id: 7, book: null }
    ])
  })
})
