import assert from 'node:assert/strict'
import createClient, { type Middleware } from 'openapi-fetch'
import type { paths } from './schema.js'

/*
 * A program written against the SDK generated from the served API document (openapi-typescript
 * types + openapi-fetch), as a user of the service writes one (docs/api.md "Programs"). The test
 * (test/process/generated-sdk.test.ts) generates `schema.d.ts` next to it, compiles it with
 * `tsc --strict` and runs it against a started service: every route family, through the types
 * only (no cast, no hand-written path or header). It prints one JSON line per family and exits 1
 * on the first outcome that is not the documented one.
 *
 * Environment: BASE_URL (the service), ADMIN_PASSWORD (the `admin` account's password).
 */

const baseUrl = process.env.BASE_URL!
const done = (family: string, facts: Record<string, unknown>) => console.log(JSON.stringify({ family, ...facts }))

/** The bearer token sent on every request of `client`. */
const bearer = (token: string): Middleware => ({
  onRequest({ request }) {
    request.headers.set('Authorization', `Bearer ${token}`)
    return request
  }
})

// Login, then an API token for the program (the token a program should use).
const anonymous = createClient<paths>({ baseUrl })
const login = await anonymous.POST('/login', { body: { username: 'admin', password: process.env.ADMIN_PASSWORD! } })
assert.ok(login.data, JSON.stringify(login.error))
const session = createClient<paths>({ baseUrl })
session.use(bearer(login.data.data.token))
const minted = await session.POST('/tokens', { body: { name: 'generated SDK', role: 'admin', expires_in_days: 1 } })
assert.ok(minted.data, JSON.stringify(minted.error))
const api = createClient<paths>({ baseUrl })
api.use(bearer(minted.data.data.token))

// Books: create (one with an Idempotency-Key, sent twice), page with limit and Link, read with ETag.
const titles = ['Dune', 'Beloved', 'Middlemarch', 'Solaris']
const ids: number[] = []
for (const [index, title] of titles.entries()) {
  const created = await api.POST('/book', { body: { title, author: `Author ${index}`, year: 1960 + index } })
  assert.equal(created.response.status, 201, JSON.stringify(created.error))
  ids.push(created.data!.data.id)
}
const key = { 'idempotency-key': 'generated-sdk-1' }
const first = await api.POST('/book', { params: { header: key }, body: { title: 'Kindred', author: 'Octavia E. Butler', year: 1979 } })
const again = await api.POST('/book', { params: { header: key }, body: { title: 'Kindred', author: 'Octavia E. Butler', year: 1979 } })
assert.equal(again.data?.data.id, first.data?.data.id)
assert.equal(again.response.headers.get('idempotent-replayed'), 'true')

const seen: string[] = []
let page = await api.GET('/books', { params: { query: { limit: 2, sort: 'title', count: true } } })
const total = Number(page.response.headers.get('x-total-count'))
for (;;) {
  assert.ok(page.data, JSON.stringify(page.error))
  seen.push(...page.data.data.map((book) => book.title))
  const next = /<[^>]*[?&]after=([^&>]+)[^>]*>; rel="next"/.exec(page.response.headers.get('link') ?? '')
  if (!next) break
  page = await api.GET('/books', { params: { query: { limit: 2, sort: 'title', count: true, after: decodeURIComponent(next[1]!) } } })
}
assert.deepEqual(seen, [...titles, 'Kindred'].sort())
assert.equal(total, 5)
const badLimit = await api.GET('/books', { params: { query: { limit: 0 } } })
assert.equal(badLimit.response.status, 400)
assert.equal(badLimit.error?.message, 'Invalid input')

const id = ids[0]!
const read = await api.GET('/book/{id}', { params: { path: { id } } })
const etag = read.response.headers.get('etag')!
assert.equal(read.data?.data.title, 'Dune')
const unchanged = await api.GET('/book/{id}', { params: { path: { id }, header: { 'if-none-match': etag } } })
assert.equal(unchanged.response.status, 304)
assert.equal(unchanged.response.headers.get('etag'), etag)
const updated = await api.PUT('/book/{id}', { params: { path: { id }, header: { 'if-match': etag } }, body: { year: 1966 } })
assert.equal(updated.data?.data.year, 1966)
const stale = await api.PUT('/book/{id}', { params: { path: { id }, header: { 'if-match': etag } }, body: { year: 1967 } })
assert.equal(stale.response.status, 412)
assert.equal(stale.error?.message, 'Precondition failed')
const missing = await api.GET('/book/{id}', { params: { path: { id: 999_999 } } })
assert.equal(missing.error?.message, 'Book not found')
done('books', { pages: Math.ceil(seen.length / 2), total, etag: etag.length > 0, preconditionFailed: stale.response.status })

// History and restore: version 1 comes back as a new version, under If-Match.
const history = await api.GET('/book/{id}/history', { params: { path: { id }, query: { limit: 10 } } })
assert.ok(history.data, JSON.stringify(history.error))
const versions = history.data.data.map((entry) => `${entry.version}:${entry.operation}`)
assert.deepEqual(versions, ['2:updated', '1:created'])
const current = updated.response.headers.get('etag')!
const restored = await api.POST('/book/{id}/restore', { params: { path: { id }, header: { 'if-match': current } }, body: { version: 1 } })
assert.equal(restored.data?.data.year, 1960)
const removed = await api.DELETE('/book/{id}', { params: { path: { id: ids[1]! } } })
assert.equal(removed.response.status, 200)
done('history', { versions, restoredYear: restored.data?.data.year })

// Search.
const found = await api.GET('/books', { params: { query: { q: 'dune' } } })
assert.deepEqual(found.data?.data.map((book) => book.title), ['Dune'])
const byYear = await api.GET('/books', { params: { query: { year_min: 1962, year_max: 1963 } } })
assert.deepEqual(byYear.data?.data.map((book) => book.year), [1962, 1963])
done('search', { found: found.data?.data.length, byYear: byYear.data?.data.length })

// Users.
const user = await api.POST('/users', { body: { username: 'sdk-reader', password: 'a long enough passphrase', role: 'reader' } })
assert.equal(user.data?.data.role, 'reader')
const promoted = await api.PUT('/users/{username}', { params: { path: { username: 'sdk-reader' } }, body: { role: 'editor' } })
assert.equal(promoted.data?.data.role, 'editor')
const users = await api.GET('/users')
assert.deepEqual(users.data?.data.map((account) => account.username).sort(), ['admin', 'sdk-reader'])
const taken = await api.POST('/users', { body: { username: 'SDK-reader', password: 'a long enough passphrase', role: 'reader' } })
assert.equal(taken.response.status, 409)
assert.equal((await api.DELETE('/users/{username}', { params: { path: { username: 'sdk-reader' } } })).response.status, 200)
done('users', { listed: users.data?.data.length, conflict: taken.response.status })

// API tokens: list, revoke one, and the revoked one is refused.
const spare = await session.POST('/tokens', { body: { name: 'spare', role: 'reader' } })
const tokens = await api.GET('/tokens', { params: { query: { all: true } } })
assert.deepEqual(tokens.data?.data.map((token) => token.name).sort(), ['generated SDK', 'spare'])
assert.equal((await api.DELETE('/tokens/{id}', { params: { path: { id: spare.data!.data.id } } })).response.status, 200)
const revoked = createClient<paths>({ baseUrl })
revoked.use(bearer(spare.data!.data.token))
const refused = await revoked.GET('/books')
assert.equal(refused.response.status, 401)
assert.equal(refused.error?.message, 'Invalid token')
done('tokens', { listed: tokens.data?.data.length, revoked: refused.response.status })

// Webhooks: create, read, change, its deliveries, replay, rotate, delete.
const hook = await api.POST('/webhooks', { body: { url: 'http://127.0.0.1:9/hook', events: ['created', 'deleted'], description: 'SDK' } })
assert.ok(hook.data, JSON.stringify(hook.error))
const hookId = hook.data.data.id
assert.match(hook.data.data.secret, /^whsec_/)
const disabled = await api.PUT('/webhooks/{id}', { params: { path: { id: hookId } }, body: { enabled: false } })
assert.equal(disabled.data?.data.enabled, false)
assert.equal((await api.GET('/webhooks/{id}', { params: { path: { id: hookId } } })).data?.data.url, 'http://127.0.0.1:9/hook')
assert.equal((await api.GET('/webhooks')).data?.data.length, 1)
const deliveries = await api.GET('/webhooks/{id}/deliveries', { params: { path: { id: hookId }, query: { limit: 10, status: 'pending' } } })
assert.ok(Array.isArray(deliveries.data?.data), JSON.stringify(deliveries.error))
const replay = await api.POST('/webhooks/{id}/replay', { params: { path: { id: hookId } }, body: { after: 0 } })
assert.equal(replay.response.status, 202)
const rotated = await api.POST('/webhooks/{id}/rotate', { params: { path: { id: hookId } }, body: { overlap: 60 } })
assert.match(rotated.data?.data.secret ?? '', /^whsec_/)
assert.equal((await api.DELETE('/webhooks/{id}', { params: { path: { id: hookId } } })).response.status, 200)
done('webhooks', { created: true, replay: replay.response.status, rotated: true })

// The change feed, read as the stream it is documented as: the first event after 0.
const feed = await api.GET('/books/changes', { params: { query: { after: 0 } }, parseAs: 'stream' })
const reader = feed.data!.pipeThrough(new TextDecoderStream()).getReader()
let text = ''
while (!/\n\n/.test(text.replace(/^retry: \d+\n\n/, ''))) text += (await reader.read()).value ?? ''
await reader.cancel()
const event = /event: (\w+)\ndata: (.*)\n/.exec(text)
assert.equal(event?.[1], 'created')
done('changes', { first: event?.[1], book: (JSON.parse(event![2]!) as { book: { title: string } }).book.title })

// Health.
assert.equal((await anonymous.GET('/healthz')).data?.message, 'OK')
assert.equal((await anonymous.GET('/readyz')).response.status, 200)
done('health', { ready: true })
