import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { authHeaders, suiteApp } from '../../support/app.js'

const auth = authHeaders()

describe('CORS off (default)', () => {
  const app = suiteApp()

  test('no Access-Control headers, and OPTIONS stays 405 with Allow', async () => {
    const get = await app().inject({ method: 'GET', url: '/books', headers: { ...auth, origin: 'https://app.example' } })
    assert.equal(get.statusCode, 200)
    assert.equal(get.headers['access-control-allow-origin'], undefined)

    const preflight = await app().inject({
      method: 'OPTIONS',
      url: '/book',
      headers: { origin: 'https://app.example', 'access-control-request-method': 'POST' }
    })
    assert.equal(preflight.statusCode, 405)
    assert.equal(preflight.headers.allow, 'POST')
    assert.equal(preflight.headers['access-control-allow-origin'], undefined)
    assert.deepEqual(preflight.json(), { status: 405, message: 'Method not allowed', data: null })
  })
})

describe('CORS on (CORS_ORIGINS)', () => {
  const app = suiteApp({ CORS_ORIGINS: 'https://app.example, http://localhost:3000' })

  const preflight = (url: string, method: string, origin = 'https://app.example') =>
    app().inject({
      method: 'OPTIONS',
      url,
      headers: { origin, 'access-control-request-method': method, 'access-control-request-headers': 'authorization, content-type' }
    })

  test('preflight on the book routes: 204 with the allowed origin, methods and headers, no token needed', async () => {
    for (const [url, method] of [['/book', 'POST'], ['/books', 'GET'], ['/book/1', 'PUT'], ['/book/1', 'DELETE'], ['/login', 'POST']]) {
      const response = await preflight(url!, method!)
      assert.equal(response.statusCode, 204, `${method} ${url}`)
      assert.equal(response.headers['access-control-allow-origin'], 'https://app.example')
      assert.match(String(response.headers['access-control-allow-methods']), new RegExp(`\\b${method}\\b`))
      assert.match(String(response.headers['access-control-allow-headers']), /Authorization/)
      assert.match(String(response.headers['access-control-allow-headers']), /Content-Type/)
      for (const header of ['If-Match', 'If-None-Match', 'Idempotency-Key', 'Commit-Position']) {
        assert.match(String(response.headers['access-control-allow-headers']), new RegExp(`\\b${header}\\b`), header)
      }
    }
    const second = await preflight('/books', 'GET', 'http://localhost:3000')
    assert.equal(second.headers['access-control-allow-origin'], 'http://localhost:3000')
  })

  test('an origin not in the list gets no Access-Control-Allow-Origin', async () => {
    const response = await preflight('/book', 'POST', 'https://evil.example')
    assert.equal(response.headers['access-control-allow-origin'], undefined)
    const get = await app().inject({ method: 'GET', url: '/books', headers: { ...auth, origin: 'https://evil.example' } })
    assert.equal(get.headers['access-control-allow-origin'], undefined)
  })

  test('responses to an allowed origin carry Access-Control-Allow-Origin, errors included', async () => {
    const ok = await app().inject({ method: 'GET', url: '/books', headers: { ...auth, origin: 'https://app.example' } })
    assert.equal(ok.statusCode, 200)
    assert.equal(ok.headers['access-control-allow-origin'], 'https://app.example')
    // The headers the typed client reads are readable by a page on that origin.
    for (const header of ['ETag', 'Link', 'X-Total-Count', 'Idempotent-Replayed', 'Commit-Position']) {
      assert.match(String(ok.headers['access-control-expose-headers']), new RegExp(`\\b${header}\\b`), header)
    }
    assert.match(String(ok.headers['access-control-expose-headers']), /X-Request-Id/)
    const refused = await app().inject({ method: 'GET', url: '/books', headers: { origin: 'https://app.example' } })
    assert.equal(refused.statusCode, 401)
    assert.equal(refused.headers['access-control-allow-origin'], 'https://app.example')
  })

  test('OPTIONS that is not a preflight still answers 405 with Allow (404 on unknown paths)', async () => {
    const options = await app().inject({ method: 'OPTIONS', url: '/book/1' })
    assert.equal(options.statusCode, 405)
    assert.equal(options.headers.allow, 'DELETE, GET, HEAD, PUT')
    assert.deepEqual(options.json(), { status: 405, message: 'Method not allowed', data: null })
    const unknown = await app().inject({ method: 'OPTIONS', url: '/nowhere' })
    assert.equal(unknown.statusCode, 404)
    assert.deepEqual(unknown.json(), { status: 404, message: 'Route not found', data: null })
    const wrongMethod = await app().inject({ method: 'PATCH', url: '/nowhere' })
    assert.equal(wrongMethod.statusCode, 404)
  })
})
