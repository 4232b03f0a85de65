import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { createDecoder } from 'fast-jwt'
import type { FastifyInstance } from 'fastify'
import { TEST_PASSWORD, buildTestApp } from '../support/app.js'

const decode = createDecoder({ complete: true })

/** A correct login through a proxy that says the client is `client` (X-Forwarded-For). */
function loginForwardedFor(app: FastifyInstance, client: string) {
  return app.inject({ method: 'POST', url: '/login', headers: { 'x-forwarded-for': client }, payload: { username: 'admin', password: TEST_PASSWORD } })
}

describe('POST /login', () => {
  test('200 Login successful with an HS256 bearer token (sub, iat, exp = TOKEN_TTL) that opens the book routes', async () => {
    const app = await buildTestApp({ TOKEN_TTL: 120 })
    try {
      const response = await app.inject({ method: 'POST', url: '/login', payload: { username: 'admin', password: TEST_PASSWORD } })
      assert.equal(response.statusCode, 200)
      const body = response.json()
      assert.equal(body.status, 200)
      assert.equal(body.message, 'Login successful')
      assert.deepEqual(Object.keys(body.data).sort(), ['expires_in', 'token', 'token_type'])
      assert.equal(body.data.token_type, 'Bearer')
      assert.equal(body.data.expires_in, 120)
      const { header, payload } = decode(body.data.token) as { header: { alg: string }; payload: Record<string, number | string> }
      assert.equal(header.alg, 'HS256')
      assert.equal(payload.sub, 'admin')
      assert.equal(Number(payload.exp) - Number(payload.iat), 120)
      const books = await app.inject({ url: '/books', headers: { authorization: `Bearer ${body.data.token}` } })
      assert.equal(books.statusCode, 200)
    } finally {
      await app.close()
    }
  })

  test('uses AUTH_USERNAME and AUTH_PASSWORD', async () => {
    const app = await buildTestApp({ AUTH_USERNAME: 'librarian', AUTH_PASSWORD: 's3cret' })
    try {
      const ok = await app.inject({ method: 'POST', url: '/login', payload: { username: 'librarian', password: 's3cret' } })
      assert.equal(ok.statusCode, 200)
      const old = await app.inject({ method: 'POST', url: '/login', payload: { username: 'admin', password: 's3cret' } })
      assert.equal(old.statusCode, 401)
    } finally {
      await app.close()
    }
  })

  test('401 Invalid credentials, identical for a wrong username and a wrong password', async () => {
    const app = await buildTestApp()
    try {
      const wrongPassword = await app.inject({ method: 'POST', url: '/login', payload: { username: 'admin', password: 'nope' } })
      const wrongUser = await app.inject({ method: 'POST', url: '/login', payload: { username: 'root', password: TEST_PASSWORD } })
      const expected = { status: 401, message: 'Invalid credentials', data: null }
      assert.deepEqual(wrongPassword.json(), expected)
      assert.deepEqual(wrongUser.json(), expected)
      assert.equal(wrongPassword.statusCode, 401)
    } finally {
      await app.close()
    }
  })

  test('400 Invalid input for a body that is not {username: string, password: string}', async () => {
    const app = await buildTestApp()
    try {
      for (const payload of ['', '{', '[]', 'null', '{"username":"admin"}', '{"username":"admin","password":1}', '{"username":null,"password":"x"}']) {
        const response = await app.inject({ method: 'POST', url: '/login', headers: { 'content-type': 'application/json' }, payload })
        assert.deepEqual(response.json(), { status: 400, message: 'Invalid input', data: null }, payload)
      }
    } finally {
      await app.close()
    }
  })

  test('429 Too many requests past LOGIN_RATE_LIMIT attempts per minute from one client, even with the right password', async () => {
    const app = await buildTestApp({ LOGIN_RATE_LIMIT: 3 })
    try {
      for (let i = 0; i < 3; i++) {
        const response = await app.inject({ method: 'POST', url: '/login', payload: { username: 'admin', password: 'wrong' } })
        assert.equal(response.statusCode, 401)
      }
      const limited = await app.inject({ method: 'POST', url: '/login', payload: { username: 'admin', password: TEST_PASSWORD } })
      assert.equal(limited.statusCode, 429)
      assert.deepEqual(limited.json(), { status: 429, message: 'Too many requests', data: null })
      assert.ok(Number(limited.headers['retry-after']) > 0)
      const otherClient = await app.inject({
        method: 'POST', url: '/login', remoteAddress: '10.9.8.7', payload: { username: 'admin', password: TEST_PASSWORD }
      })
      assert.equal(otherClient.statusCode, 200)
    } finally {
      await app.close()
    }
  })

  test('with TRUST_PROXY the rate limit counts per forwarded client, not per proxy', async () => {
    const app = await buildTestApp({ LOGIN_RATE_LIMIT: 1, TRUST_PROXY: 'true' })
    try {
      const attempt = (client: string) => loginForwardedFor(app, client)
      assert.equal((await attempt('203.0.113.1')).statusCode, 200)
      assert.equal((await attempt('203.0.113.1')).statusCode, 429)
      assert.equal((await attempt('203.0.113.2')).statusCode, 200)
    } finally {
      await app.close()
    }
  })

  test('TRUST_PROXY as a list trusts only those proxies', async () => {
    const app = await buildTestApp({ LOGIN_RATE_LIMIT: 1, TRUST_PROXY: '127.0.0.1, 10.0.0.0/8' })
    try {
      const attempt = (client: string) => loginForwardedFor(app, client)
      assert.equal((await attempt('203.0.113.1')).statusCode, 200)
      assert.equal((await attempt('203.0.113.2')).statusCode, 200)
      assert.equal((await attempt('203.0.113.2')).statusCode, 429)
    } finally {
      await app.close()
    }
  })

  test('without TRUST_PROXY a forged X-Forwarded-For does not escape the limit', async () => {
    const app = await buildTestApp({ LOGIN_RATE_LIMIT: 1 })
    try {
      const attempt = (client: string) => loginForwardedFor(app, client)
      assert.equal((await attempt('203.0.113.1')).statusCode, 200)
      assert.equal((await attempt('203.0.113.2')).statusCode, 429)
    } finally {
      await app.close()
    }
  })
})
