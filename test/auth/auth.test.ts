import assert from 'node:assert/strict'
import { generateKeyPairSync } from 'node:crypto'
import { test } from 'node:test'
import { createSigner } from 'fast-jwt'
import { TEST_SECRET, authHeaders, signToken } from '../support/app.js'
import { dune } from '../support/books.js'
import { describeEachEngine } from '../support/suite.js'

const now = () => Math.floor(Date.now() / 1000)

/** Every protected operation, as inject options (ids that exist are filled in by the test). */
const operations = (id: number) => [
  { method: 'POST' as const, url: '/book', payload: dune },
  { method: 'GET' as const, url: '/books' },
  { method: 'GET' as const, url: `/book/${id}` },
  { method: 'PUT' as const, url: `/book/${id}`, payload: { year: 1 } },
  { method: 'DELETE' as const, url: `/book/${id}` }
]

function base64url(value: object | string): string {
  return Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url')
}

describeEachEngine('authentication', ({ app }) => {
  test('every book operation answers 401 Authorization token required without a token', async () => {
    for (const headers of [{}, { authorization: '' }, { authorization: '   ' }, { authorization: 'Bearer' }, { authorization: 'bearer   ' }]) {
      for (const operation of operations(1)) {
        const response = await app().inject({ ...operation, headers })
        assert.equal(response.statusCode, 401, `${operation.method} ${operation.url} ${JSON.stringify(headers)}`)
        assert.deepEqual(response.json(), { status: 401, message: 'Authorization token required', data: null })
      }
    }
  })

  test('every book operation answers 401 Invalid token for a bad token, and changes nothing', async () => {
    const created = await app().inject({ method: 'POST', url: '/book', headers: authHeaders(), payload: dune })
    const book = created.json().data
    for (const operation of operations(book.id)) {
      const response = await app().inject({ ...operation, headers: { authorization: 'Bearer not.a.token' } })
      assert.deepEqual(response.json(), { status: 401, message: 'Invalid token', data: null })
    }
    assert.deepEqual((await app().inject({ url: `/book/${book.id}`, headers: authHeaders() })).json().data, book)
  })

  test('accepts the raw token and Bearer in any case', async () => {
    const token = signToken()
    for (const authorization of [token, `Bearer ${token}`, `bearer ${token}`, `BEARER   ${token}  `]) {
      const response = await app().inject({ url: '/books', headers: { authorization } })
      assert.equal(response.statusCode, 200, authorization)
    }
  })

  test('accepts a token minted elsewhere with any payload, HS256/HS384/HS512, no claims required', async () => {
    for (const algorithm of ['HS256', 'HS384', 'HS512'] as const) {
      for (const payload of [{}, { sub: 'someone' }, { scope: 'x', nested: { a: 1 } }]) {
        const response = await app().inject({ url: '/books', headers: authHeaders(signToken(payload, { algorithm })) })
        assert.equal(response.statusCode, 200, `${algorithm} ${JSON.stringify(payload)}`)
      }
    }
  })

  test('honours exp and nbf with a 30 s leeway; iat is not checked', async () => {
    const status = async (payload: Record<string, unknown>) =>
      (await app().inject({ url: '/books', headers: authHeaders(signToken(payload)) })).statusCode
    assert.equal(await status({ exp: now() - 120 }), 401)
    assert.equal(await status({ exp: now() - 10 }), 200)
    assert.equal(await status({ exp: now() + 60 }), 200)
    assert.equal(await status({ nbf: now() + 120 }), 401)
    assert.equal(await status({ nbf: now() + 10 }), 200)
    assert.equal(await status({ iat: now() + 100_000 }), 200)
  })

  test('rejects other algorithms, alg none, a wrong secret and a tampered payload', async () => {
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 })
    const rs256 = createSigner({ key: privateKey.export({ type: 'pkcs8', format: 'pem' }) as string, algorithm: 'RS256' })({})
    const publicPem = publicKey.export({ type: 'spki', format: 'pem' }) as string
    const confused = createSigner({ key: publicPem, algorithm: 'HS256' })({})
    const valid = signToken({ sub: 'a' })
    const [header, , signature] = valid.split('.')
    const tokens = {
      rs256,
      confused,
      none: `${base64url({ alg: 'none', typ: 'JWT' })}.${base64url({})}.`,
      noneUpper: `${base64url({ alg: 'NONE', typ: 'JWT' })}.${base64url({})}.`,
      wrongSecret: signToken({}, { key: `${TEST_SECRET}-other` }),
      tampered: `${header}.${base64url({ sub: 'admin' })}.${signature}`,
      truncated: valid.slice(0, -5),
      extraSegment: `${valid}.abc`,
      garbage: 'a.b.c'
    }
    for (const [name, token] of Object.entries(tokens)) {
      const response = await app().inject({ url: '/books', headers: { authorization: `Bearer ${token}` } })
      assert.deepEqual(response.json(), { status: 401, message: 'Invalid token', data: null }, name)
    }
  })

  test('auth comes before body parsing and size checks: no token + bad or huge body is 401', async () => {
    for (const payload of ['{broken', 'x'.repeat(2 * 1024 * 1024)]) {
      for (const method of ['POST', 'PUT'] as const) {
        const response = await app().inject({ method, url: method === 'POST' ? '/book' : '/book/1', payload })
        assert.equal(response.statusCode, 401, `${method} ${payload.length}`)
      }
    }
  })

  test('health, readiness and login are not behind auth; unknown routes and wrong methods answer the same with or without a token', async () => {
    assert.equal((await app().inject({ url: '/healthz' })).statusCode, 200)
    assert.equal((await app().inject({ url: '/readyz' })).statusCode, 200)
    for (const headers of [{}, authHeaders()]) {
      assert.equal((await app().inject({ url: '/nope', headers })).statusCode, 404)
      assert.equal((await app().inject({ method: 'PATCH', url: '/book/1', headers })).statusCode, 405)
      assert.equal((await app().inject({ method: 'DELETE', url: '/books', headers })).statusCode, 405)
    }
  })
})

describeEachEngine(
  'AUTH_ENABLED=false',
  ({ app }) => {
    test('the book operations need no token', async () => {
      const response = await app().inject({ method: 'POST', url: '/book', payload: dune })
      assert.equal(response.statusCode, 201)
      assert.equal((await app().inject({ url: '/books' })).statusCode, 200)
    })
  },
  { AUTH_ENABLED: false }
)
