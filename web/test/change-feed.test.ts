import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import type { BookChangeEvent } from '../../src/client/index.js'
import { envelopeAnswer, eventStream, openEventStream, scriptedFetch } from '../../test/support/scripted-fetch.js'
import { pageClient } from '../src/api/client.js'
import { openChangeFeed, type FeedState } from '../src/live/change-feed.js'

/** Runs the feed until `done(state)` says so; returns what it reported. */
async function follow(fetch: typeof globalThis.fetch, done: (states: FeedState[], changes: BookChangeEvent[]) => boolean) {
  const states: FeedState[] = []
  const changes: BookChangeEvent[] = []
  const waits: number[] = []
  let unauthorized = 0
  let finish!: () => void
  const finished = new Promise<void>((resolve) => (finish = resolve))
  const check = () => done(states, changes) && finish()
  const feed = openChangeFeed({
    client: pageClient({ token: 'a.b.c', fetch }),
    onState: (state) => (states.push(state), check()),
    onChange: (change) => (changes.push(change), check()),
    onUnauthorized: () => unauthorized++,
    wait: async (ms) => void waits.push(ms)
  })
  let stuck: ReturnType<typeof setTimeout> | undefined
  await Promise.race([finished, new Promise((_, reject) => (stuck = setTimeout(() => reject(new Error(`stuck: ${states.join(',')}`)), 5000)))])
  clearTimeout(stuck)
  feed.close()
  return { states, changes, waits, unauthorized }
}

describe('the page’s change feed: the client’s subscribe and the states it shows', () => {
  test('a service without the feed (404): off, once, no retry', async () => {
    const { fetch, requests } = scriptedFetch([() => envelopeAnswer(404, 'Route not found')])
    const { states, waits } = await follow(fetch, (states) => states.includes('off'))
    await new Promise((resolve) => setTimeout(resolve, 50))
    assert.deepEqual(states, ['connecting', 'off'])
    assert.equal(requests.length, 1)
    assert.deepEqual(waits, [])
  })

  test('403 turns it off too; 401 ends the session', async () => {
    const forbidden = await follow(scriptedFetch([() => envelopeAnswer(403, 'Forbidden')]).fetch, (states) => states.includes('off'))
    assert.equal(forbidden.unauthorized, 0)
    const revoked = await follow(scriptedFetch([() => envelopeAnswer(401, 'Invalid token')]).fetch, (states) => states.includes('off'))
    assert.equal(revoked.unauthorized, 1)
  })

  test('events become changes; after a break it resumes with Last-Event-ID, the delay growing', async () => {
    const { fetch, requests } = scriptedFetch([
      () => eventStream('id: 5\nevent: created\ndata: {"id":3,"book":{"id":3,"title":"Dune","author":"Frank Herbert","year":1965}}\n\nid: 6\nevent: surprise\ndata: {}\n\n'),
      () => envelopeAnswer(503, 'Service unavailable'),
      () => {
        throw new TypeError('fetch failed')
      },
      () => openEventStream('id: 9\nevent: deleted\ndata: {"id":3,"book":null}\n\nid: 10\nevent: reset\ndata: {}\n\n')
    ])
    const { changes, states, waits } = await follow(fetch, (_states, changes) => changes.length === 3)
    assert.deepEqual(changes, [
      { seq: 5, type: 'created', id: 3, book: { id: 3, title: 'Dune', author: 'Frank Herbert', year: 1965 } },
      { seq: 9, type: 'deleted', id: 3, book: null },
      { seq: 10, type: 'reset', id: null, book: null }
    ])
    assert.equal(requests[0]!.url, '/books/changes')
    assert.equal(requests[0]!.cache, 'no-store')
    assert.equal(requests[0]!.headers.authorization, 'Bearer a.b.c')
    assert.equal(requests[0]!.headers.accept, 'text/event-stream')
    assert.equal(requests[0]!.headers['last-event-id'], undefined)
    // The unknown event's id counts too: resuming after it.
    for (const request of requests.slice(1)) assert.equal(request.headers['last-event-id'], '6')
    assert.deepEqual(states.slice(0, 3), ['connecting', 'live', 'reconnecting'])
    // 1 s, 2 s, 4 s (each with up to half taken off at random): growing, never a storm.
    assert.equal(waits.length, 3)
    waits.forEach((wait, index) => assert.ok(wait >= 500 * 2 ** index && wait <= 1000 * 2 ** index, `${wait}`))
  })

  test('a 200 that is not the feed (a page server answering every path): off, once, no retry', async () => {
    const html = () => new Response('<!doctype html><title>Books</title>', { status: 200, headers: { 'content-type': 'text/html' } })
    const { fetch, requests } = scriptedFetch([html])
    const { states, waits, unauthorized } = await follow(fetch, (states) => states.includes('off'))
    await new Promise((resolve) => setTimeout(resolve, 50))
    assert.deepEqual(states, ['connecting', 'off'])
    assert.equal(requests.length, 1)
    assert.deepEqual(waits, [])
    assert.equal(unauthorized, 0)
  })
})
