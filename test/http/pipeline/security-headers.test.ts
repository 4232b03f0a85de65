import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { authHeaders, buildTestApp, suiteApp } from '../../support/app.js'

const auth = authHeaders()

/** What @fastify/helmet set with the service's options (captured before helmet ran once at start-up). */
const expected = {
  'content-security-policy':
    "default-src 'self';base-uri 'self';font-src 'self' https: data:;form-action 'self';frame-ancestors 'self';" +
    "img-src 'self' data:;object-src 'none';script-src 'self';script-src-attr 'none';style-src 'self' https: 'unsafe-inline'",
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'origin-agent-cluster': '?1',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'x-dns-prefetch-control': 'off',
  'x-download-options': 'noopen',
  'x-frame-options': 'SAMEORIGIN',
  'x-permitted-cross-domain-policies': 'none',
  'x-xss-protection': '0'
}

test('every response carries the same security headers: success, 401, 404, 405, list', async () => {
  const app = await buildTestApp()
  try {
    const created = await app.inject({ method: 'POST', url: '/book', headers: authHeaders(), payload: { title: 't', author: 'a', year: 1 } })
    const responses = [
      created,
      await app.inject({ url: '/books', headers: authHeaders() }),
      await app.inject({ url: '/book/1' }),
      await app.inject({ url: '/nowhere' }),
      await app.inject({ method: 'PATCH', url: '/books' }),
      await app.inject({ url: '/healthz' })
    ]
    for (const response of responses) {
      for (const [name, value] of Object.entries(expected)) assert.equal(response.headers[name], value, `${name} on ${response.statusCode}`)
      assert.equal(response.headers['strict-transport-security'], undefined)
      assert.equal(response.headers['x-powered-by'], undefined)
    }
  } finally {
    await app.close()
  }
})

describe('security headers', () => {
  const app = suiteApp()

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
      const response = await app().inject(request)
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
