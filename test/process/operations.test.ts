import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { FastifyInstance } from 'fastify'
import { authHeaders, buildTestApp } from '../support/app.js'

const auth = authHeaders()

describe('GET /metrics', () => {
  let app: FastifyInstance
  before(async () => {
    app = await buildTestApp()
  })
  after(() => app.close())

  test('Prometheus text: request counts and latency by route and status, and process metrics, without a token', async () => {
    await app.inject({ method: 'GET', url: '/books', headers: auth })
    await app.inject({ method: 'GET', url: '/books', headers: auth })
    await app.inject({ method: 'GET', url: '/book/123', headers: auth })
    await app.inject({ method: 'GET', url: '/books' })
    await app.inject({ method: 'GET', url: '/no/such/path/42' })

    const response = await app.inject({ method: 'GET', url: '/metrics' })
    assert.equal(response.statusCode, 200)
    assert.match(String(response.headers['content-type']), /^text\/plain; version=0\.0\.4/)
    const text = response.body
    const line = (name: string) => text.split('\n').find((row) => row.startsWith(name))
    assert.equal(line('http_requests_total{method="GET",route="/books",status_code="200"}'), 'http_requests_total{method="GET",route="/books",status_code="200"} 2')
    assert.equal(line('http_requests_total{method="GET",route="/books",status_code="401"}'), 'http_requests_total{method="GET",route="/books",status_code="401"} 1')
    assert.equal(line('http_requests_total{method="GET",route="/book/:id",status_code="404"}'), 'http_requests_total{method="GET",route="/book/:id",status_code="404"} 1')
    // Unknown paths share one label value, so they cannot grow the series.
    assert.equal(line('http_requests_total{method="GET",route="unmatched",status_code="404"}'), 'http_requests_total{method="GET",route="unmatched",status_code="404"} 1')
    assert.doesNotMatch(text, /no\/such\/path/)
    assert.equal(
      line('http_request_duration_seconds_count{method="GET",route="/books",status_code="200"}'),
      'http_request_duration_seconds_count{method="GET",route="/books",status_code="200"} 2'
    )
    assert.match(text, /^http_request_duration_seconds_bucket\{le="0\.005",method="GET",route="\/books",status_code="200"\} \d+$/m)
    assert.match(text, /^# TYPE http_request_duration_seconds histogram$/m)
    assert.match(text, /^process_cpu_user_seconds_total \d/m)
    assert.match(text, /^process_resident_memory_bytes \d/m)
    assert.match(text, /^nodejs_eventloop_lag_seconds \d/m)
  })

  test('METRICS_ENABLED=false: 404 Route not found', async () => {
    const off = await buildTestApp({ METRICS_ENABLED: false })
    try {
      const response = await off.inject({ method: 'GET', url: '/metrics' })
      assert.equal(response.statusCode, 404)
      assert.deepEqual(response.json(), { status: 404, message: 'Route not found', data: null })
    } finally {
      await off.close()
    }
  })
})

describe('security headers', () => {
  let app: FastifyInstance
  before(async () => {
    app = await buildTestApp()
  })
  after(() => app.close())

  test('on every response: success, 401, 404, 405, the docs page', async () => {
    const requests = [
      { method: 'GET', url: '/books', headers: auth },
      { method: 'GET', url: '/books' },
      { method: 'GET', url: '/nowhere' },
      { method: 'PATCH', url: '/books' },
      { method: 'GET', url: '/docs' },
      { method: 'GET', url: '/openapi.json' }
    ] as const
    for (const request of requests) {
      const response = await app.inject(request)
      const where = `${request.method} ${request.url} → ${response.statusCode}`
      assert.equal(response.headers['x-content-type-options'], 'nosniff', where)
      assert.equal(response.headers['x-frame-options'], 'SAMEORIGIN', where)
      assert.equal(response.headers['referrer-policy'], 'no-referrer', where)
      const csp = String(response.headers['content-security-policy'])
      assert.match(csp, /default-src 'self'/, where)
      assert.match(csp, /script-src 'self'/, where)
      assert.doesNotMatch(csp, /upgrade-insecure-requests/, where)
      assert.equal(response.headers['strict-transport-security'], undefined, where)
    }
  })
})

describe('CORS off (default)', () => {
  let app: FastifyInstance
  before(async () => {
    app = await buildTestApp()
  })
  after(() => app.close())

  test('no Access-Control headers, and OPTIONS stays 405 with Allow', async () => {
    const get = await app.inject({ method: 'GET', url: '/books', headers: { ...auth, origin: 'https://app.example' } })
    assert.equal(get.statusCode, 200)
    assert.equal(get.headers['access-control-allow-origin'], undefined)

    const preflight = await app.inject({
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
  let app: FastifyInstance
  before(async () => {
    app = await buildTestApp({ CORS_ORIGINS: 'https://app.example, http://localhost:3000' })
  })
  after(() => app.close())

  const preflight = (url: string, method: string, origin = 'https://app.example') =>
    app.inject({
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
    }
    const second = await preflight('/books', 'GET', 'http://localhost:3000')
    assert.equal(second.headers['access-control-allow-origin'], 'http://localhost:3000')
  })

  test('an origin not in the list gets no Access-Control-Allow-Origin', async () => {
    const response = await preflight('/book', 'POST', 'https://evil.example')
    assert.equal(response.headers['access-control-allow-origin'], undefined)
    const get = await app.inject({ method: 'GET', url: '/books', headers: { ...auth, origin: 'https://evil.example' } })
    assert.equal(get.headers['access-control-allow-origin'], undefined)
  })

  test('responses to an allowed origin carry Access-Control-Allow-Origin, errors included', async () => {
    const ok = await app.inject({ method: 'GET', url: '/books', headers: { ...auth, origin: 'https://app.example' } })
    assert.equal(ok.statusCode, 200)
    assert.equal(ok.headers['access-control-allow-origin'], 'https://app.example')
    assert.match(String(ok.headers['access-control-expose-headers']), /X-Request-Id/)
    const refused = await app.inject({ method: 'GET', url: '/books', headers: { origin: 'https://app.example' } })
    assert.equal(refused.statusCode, 401)
    assert.equal(refused.headers['access-control-allow-origin'], 'https://app.example')
  })

  test('OPTIONS that is not a preflight still answers 405 with Allow (404 on unknown paths)', async () => {
    const options = await app.inject({ method: 'OPTIONS', url: '/book/1' })
    assert.equal(options.statusCode, 405)
    assert.equal(options.headers.allow, 'DELETE, GET, HEAD, PUT')
    assert.deepEqual(options.json(), { status: 405, message: 'Method not allowed', data: null })
    const unknown = await app.inject({ method: 'OPTIONS', url: '/nowhere' })
    assert.equal(unknown.statusCode, 404)
    assert.deepEqual(unknown.json(), { status: 404, message: 'Route not found', data: null })
    const wrongMethod = await app.inject({ method: 'PATCH', url: '/nowhere' })
    assert.equal(wrongMethod.statusCode, 404)
  })
})
