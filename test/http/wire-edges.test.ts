import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { authHeaders, signToken } from '../support/app.js'
import { rawRequest, requestBytes } from '../support/raw-http.js'
import { describeEachEngine, describeEachEngineServer } from '../support/suite.js'

/**
 * The edges an independent fuzzer found, as docs/contract.md rules on them: an id of any
 * length or with a percent-encoding that does not decode is an id (401, then 404); any other
 * method on a known path is 405 with `Allow`; a body that is not UTF-8 is 400 `Invalid input`
 * and stores nothing; a repeated `Host` or `Authorization` is 400 `Bad request`; an `Expect` other
 * than `100-continue` is 417 `Expectation failed` in the envelope (docs/contract.md "Hardening"); `2020.0` is the
 * integer 2020. In-process on each engine, and on the wire against the app listening and against
 * the real process, for what `inject` cannot send.
 */

const token = signToken()
const auth = authHeaders(token)
const bearer = `Authorization: Bearer ${token}`
const BOOK_ID_ALLOW = 'DELETE, GET, HEAD, PUT'
/** `{"title":"<0xff>",…}`: the title is a byte that is not UTF-8. */
const notUtf8 = (year = 1) => Buffer.concat([Buffer.from('{"title":"'), Buffer.from([0xff]), Buffer.from(`","author":"a","year":${year}}`)])
const envelope = (status: number, message: string) => ({ status, message, data: null })

/** One request on the wire and the answer docs/contract.md gives it. */
interface WireCase {
  name: string
  bytes: Buffer
  status: number
  message: string
  allow?: string
  /** The connection must be closed after the answer. */
  closes?: boolean
}

const wireCases: WireCase[] = [
  { name: 'GET /book/% without a token', bytes: requestBytes('GET /book/% HTTP/1.1', ['Host: x']), status: 401, message: 'Authorization token required' },
  { name: 'GET /book/% with a token', bytes: requestBytes('GET /book/% HTTP/1.1', ['Host: x', bearer]), status: 404, message: 'Book not found' },
  { name: 'GET /book/12%zz with a token', bytes: requestBytes('GET /book/12%zz HTTP/1.1', ['Host: x', bearer]), status: 404, message: 'Book not found' },
  { name: 'GET /book/<150 digits> with a token', bytes: requestBytes(`GET /book/${'1'.repeat(150)} HTTP/1.1`, ['Host: x', bearer]), status: 404, message: 'Book not found' },
  { name: 'TRACE /books', bytes: requestBytes('TRACE /books HTTP/1.1', ['Host: x']), status: 405, message: 'Method not allowed', allow: 'GET, HEAD' },
  { name: 'PROPFIND /book/1', bytes: requestBytes('PROPFIND /book/1 HTTP/1.1', ['Host: x', bearer]), status: 405, message: 'Method not allowed', allow: BOOK_ID_ALLOW },
  { name: 'QUERY /books without Content-Type', bytes: requestBytes('QUERY /books HTTP/1.1', ['Host: x']), status: 405, message: 'Method not allowed', allow: 'GET, HEAD' },
  { name: 'QUERY /books with a body', bytes: requestBytes('QUERY /books HTTP/1.1', ['Host: x', 'Content-Type: application/json'], '{}'), status: 405, message: 'Method not allowed', allow: 'GET, HEAD' },
  { name: 'CONNECT /books', bytes: requestBytes('CONNECT /books HTTP/1.1', ['Host: x']), status: 405, message: 'Method not allowed', allow: 'GET, HEAD', closes: true },
  { name: 'CONNECT /book/1 with a token', bytes: requestBytes('CONNECT /book/1 HTTP/1.1', ['Host: x', bearer]), status: 405, message: 'Method not allowed', allow: BOOK_ID_ALLOW, closes: true },
  { name: 'POST /book whose body is not UTF-8', bytes: requestBytes('POST /book HTTP/1.1', ['Host: x', bearer, 'Content-Type: application/json'], notUtf8()), status: 400, message: 'Invalid input' },
  { name: 'two Host headers', bytes: requestBytes('GET /books HTTP/1.1', ['Host: x', 'Host: y', bearer]), status: 400, message: 'Bad request', closes: true },
  { name: 'two Host headers on /healthz', bytes: requestBytes('GET /healthz HTTP/1.1', ['Host: x', 'host: x']), status: 400, message: 'Bad request', closes: true },
  { name: 'two valid Authorization headers', bytes: requestBytes('GET /books HTTP/1.1', ['Host: x', bearer, bearer]), status: 400, message: 'Bad request', closes: true },
  { name: 'a valid Authorization header, then junk', bytes: requestBytes('GET /books HTTP/1.1', ['Host: x', bearer, 'Authorization: junk']), status: 400, message: 'Bad request', closes: true },
  { name: 'junk, then a valid Authorization header', bytes: requestBytes('GET /books HTTP/1.1', ['Host: x', 'authorization: junk', bearer]), status: 400, message: 'Bad request', closes: true },
  { name: 'GET /healthz with Expect: foo', bytes: requestBytes('GET /healthz HTTP/1.1', ['Host: x', 'Expect: foo']), status: 417, message: 'Expectation failed', closes: true },
  { name: 'GET /shelves with Expect: foo', bytes: requestBytes('GET /shelves HTTP/1.1', ['Host: x', 'Expect: foo']), status: 417, message: 'Expectation failed', closes: true },
  { name: 'GET /books with Expect: 200-ok, no token', bytes: requestBytes('GET /books HTTP/1.1', ['Host: x', 'Expect: 200-ok']), status: 417, message: 'Expectation failed', closes: true },
  {
    name: 'POST /book with Expect: foo',
    bytes: requestBytes('POST /book HTTP/1.1', ['Host: x', bearer, 'Expect: foo'], JSON.stringify({ title: 'T', author: 'A', year: 1 })),
    status: 417,
    message: 'Expectation failed',
    closes: true
  },
  {
    name: 'POST /book with two Authorization headers',
    bytes: requestBytes('POST /book HTTP/1.1', ['Host: x', bearer, bearer], JSON.stringify({ title: 'T', author: 'A', year: 1 })),
    status: 400,
    message: 'Bad request',
    closes: true
  }
]

/** Sends every wire case to 127.0.0.1:`port` and checks each answer; then that nothing was stored. */
async function checkWireCases(port: number): Promise<void> {
  for (const wire of wireCases) {
    const answer = await rawRequest(port, wire.bytes)
    assert.equal(answer.status, wire.status, wire.name)
    assert.deepEqual(answer.body, envelope(wire.status, wire.message), wire.name)
    assert.equal(answer.headers['content-type'], 'application/json; charset=utf-8', wire.name)
    assert.equal(answer.headers.allow, wire.allow, wire.name)
    assert.match(answer.headers['x-request-id'] ?? '', /^[0-9a-f-]{36}$/, `${wire.name}: the request id`)
    if (wire.closes) assert.ok(answer.closed, `${wire.name}: the connection is closed`)
  }
  const list = await rawRequest(port, requestBytes('GET /books HTTP/1.1', ['Host: x', bearer]))
  assert.deepEqual((list.body as { data: unknown }).data, [], 'none of the requests stored a book')
  // An expectation this service meets is no error.
  const expected = await rawRequest(port, requestBytes('POST /book HTTP/1.1', ['Host: x', bearer, 'Expect: 100-continue'], JSON.stringify({ title: 'T', author: 'A', year: 1 })))
  assert.equal(expected.status, 201)
}

describeEachEngine('wire edges in-process', ({ app, withFreshApp }) => {
  test('an id over 100 characters or with a percent-encoding that does not decode: 401 without a token, 404 Book not found with one', async () => {
    for (const url of ['/book/%', '/book/12%zz', '/book/%ff', '/book/%E0%A4%A', `/book/${'1'.repeat(101)}`, `/book/${'x'.repeat(5000)}`, '/book/%zz?x=1']) {
      for (const method of ['GET', 'PUT', 'DELETE'] as const) {
        const anonymous = await app().inject({ method, url, payload: method === 'PUT' ? '{}' : undefined })
        assert.deepEqual(anonymous.json(), envelope(401, 'Authorization token required'), `${method} ${url.slice(0, 40)}`)
        const known = await app().inject({ method, url, headers: auth, payload: method === 'PUT' ? '{}' : undefined })
        assert.deepEqual(known.json(), envelope(404, 'Book not found'), `${method} ${url.slice(0, 40)}`)
      }
    }
    // A bad encoding elsewhere in a path is just an unknown path.
    assert.deepEqual((await app().inject({ url: '/books%zz', headers: auth })).json(), envelope(404, 'Route not found'))
  })

  test('TRACE, PROPFIND, QUERY, M-SEARCH, LOCK on a known path: 405 with Allow, with or without a token', async () => {
    const cases = [['TRACE', '/books', 'GET, HEAD'], ['PROPFIND', '/book/1', BOOK_ID_ALLOW], ['QUERY', '/books', 'GET, HEAD'], ['M-SEARCH', '/healthz', 'GET, HEAD'], ['LOCK', '/book', 'POST'], ['TRACE', '/login', 'POST']] as const
    for (const [method, url, allow] of cases) {
      for (const headers of [{}, auth]) {
        const response = await app().inject({ method: method as 'GET', url, headers })
        assert.equal(response.statusCode, 405, `${method} ${url}`)
        assert.equal(response.headers.allow, allow, `${method} ${url}`)
        assert.deepEqual(response.json(), envelope(405, 'Method not allowed'))
      }
    }
    assert.deepEqual((await app().inject({ method: 'TRACE', url: '/shelves' })).json(), envelope(404, 'Route not found'))
  })

  test('a body that is not valid UTF-8: 400 Invalid input, nothing stored or changed (POST, PUT, login)', async () => {
    await withFreshApp(async (fresh) => {
      const headers = { ...auth, 'content-type': 'application/json' }
      const post = await fresh.inject({ method: 'POST', url: '/book', headers, payload: notUtf8() })
      assert.deepEqual(post.json(), envelope(400, 'Invalid input'))
      assert.deepEqual((await fresh.inject({ url: '/books', headers: auth })).json().data, [])
      const created = await fresh.inject({ method: 'POST', url: '/book', headers: auth, payload: { title: 'Dune', author: 'a', year: 1 } })
      const put = await fresh.inject({ method: 'PUT', url: `/book/${created.json().data.id}`, headers, payload: notUtf8(2) })
      assert.deepEqual(put.json(), envelope(400, 'Invalid input'))
      const stored = await fresh.inject({ url: `/book/${created.json().data.id}`, headers: auth })
      assert.deepEqual(stored.json().data, created.json().data)
      // A truncated multi-byte sequence and a lone surrogate encoded in UTF-8 (CESU) are not UTF-8 either.
      for (const bytes of [Buffer.from([0xe2, 0x82]), Buffer.from([0xed, 0xa0, 0x80])]) {
        const payload = Buffer.concat([Buffer.from('{"title":"a'), bytes, Buffer.from('","author":"a","year":1}')])
        assert.deepEqual((await fresh.inject({ method: 'POST', url: '/book', headers, payload })).json(), envelope(400, 'Invalid input'))
      }
      const login = Buffer.concat([Buffer.from('{"username":"admin","password":"'), Buffer.from([0xc3]), Buffer.from('"}')])
      assert.deepEqual((await fresh.inject({ method: 'POST', url: '/login', headers: { 'content-type': 'application/json' }, payload: login })).json(), envelope(400, 'Invalid input'))
      // Valid UTF-8 beyond ASCII is stored as sent.
      const text = Buffer.from(JSON.stringify({ title: 'Été 🌞', author: 'Борхес', year: 1 }))
      assert.equal((await fresh.inject({ method: 'POST', url: '/book', headers, payload: text })).json().data.title, 'Été 🌞')
    })
  })

  test('year 2020.0 and 2.02e3 are the integer 2020 (JSON Schema integer); 2020.5 and "2020" are not', async () => {
    await withFreshApp(async (fresh) => {
      for (const year of ['2020.0', '2.02e3', '202000e-2']) {
        const response = await fresh.inject({ method: 'POST', url: '/book', headers: auth, payload: `{"title":"t","author":"a","year":${year}}` })
        assert.equal(response.statusCode, 201, year)
        assert.equal(response.json().data.year, 2020, year)
        const stored = await fresh.inject({ url: `/book/${response.json().data.id}`, headers: auth })
        assert.equal(stored.body.includes('"year":2020}'), true, year)
        const put = await fresh.inject({ method: 'PUT', url: `/book/${response.json().data.id}`, headers: auth, payload: '{"year":1966.0}' })
        assert.equal(put.json().data.year, 1966)
      }
      for (const year of ['2020.5', '"2020"', '2.0205e3']) {
        const response = await fresh.inject({ method: 'POST', url: '/book', headers: auth, payload: `{"title":"t","author":"a","year":${year}}` })
        assert.deepEqual(response.json(), envelope(400, 'Invalid input'), year)
      }
    })
  })

  describe('on the wire (the app listening)', () => {
    test('CONNECT, repeated Host and Authorization, bad ids and bodies: each answered as docs/contract.md says', async () => {
      await withFreshApp(async (fresh) => {
        await fresh.listen({ port: 0, host: '127.0.0.1' })
        await checkWireCases((fresh.server.address() as { port: number }).port)
      })
    })
  })
})

describeEachEngineServer('wire edges', ({ server }) => {
  test('raw requests: each answered as docs/contract.md says, the server stays up, nothing stored', async () => {
    await checkWireCases(server().port)
    assert.equal((await fetch(`${server().url}/healthz`)).status, 200)
  })
})
