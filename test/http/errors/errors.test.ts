import assert from 'node:assert/strict'
import { Writable } from 'node:stream'
import { describe, test } from 'node:test'
import { buildApp } from '../../../src/app.js'
import type { BookStore } from '../../../src/storage/contracts/book-store.js'
import { StorageUnavailableError } from '../../../src/storage/contracts/database.js'
import type { Database } from '../../../src/storage/contracts/database.js'
import { SqliteDatabase } from '../../../src/storage/sqlite/sqlite-database.js'
import { authHeaders, testConfig } from '../../support/app.js'
import { describeEachEngine } from '../../support/suite.js'

const auth = authHeaders()

describeEachEngine('framework-made responses use the envelope', ({ app }) => {
  test('unknown paths: 404 Route not found', async () => {
    for (const [method, url] of [['GET', '/index.html'], ['GET', '/nope'], ['POST', '/books/1'], ['GET', '/book/1/extra']] as const) {
      const response = await app().inject({ method, url, headers: auth })
      assert.equal(response.statusCode, 404, url)
      assert.deepEqual(response.json(), { status: 404, message: 'Route not found', data: null })
    }
  })

  test('known path, wrong method: 405 Method not allowed with Allow', async () => {
    const cases = [
      ['POST', '/books', 'GET, HEAD'],
      ['PUT', '/books', 'GET, HEAD'],
      ['GET', '/book', 'POST'],
      ['DELETE', '/book', 'POST'],
      ['PATCH', '/book/1', 'DELETE, GET, HEAD, PUT'],
      ['POST', '/book/1', 'DELETE, GET, HEAD, PUT'],
      ['GET', '/login', 'POST'],
      ['POST', '/healthz', 'GET, HEAD']
    ] as const
    for (const [method, url, allow] of cases) {
      const response = await app().inject({ method, url })
      assert.equal(response.statusCode, 405, `${method} ${url}`)
      assert.equal(response.headers.allow, allow)
      assert.deepEqual(response.json(), { status: 405, message: 'Method not allowed', data: null })
    }
  })

  test('a body over 1 MiB: 413 Payload too large', async () => {
    const title = 'x'.repeat(1024 * 1024)
    const response = await app().inject({ method: 'POST', url: '/book', headers: auth, payload: { title, author: 'a', year: 1 } })
    assert.equal(response.statusCode, 413)
    assert.deepEqual(response.json(), { status: 413, message: 'Payload too large', data: null })
  })

  test('a URL whose percent-encoding cannot be decoded is an id like any other: 404 Book not found', async () => {
    const response = await app().inject({ url: '/book/%zz', headers: auth })
    assert.equal(response.statusCode, 404)
    assert.deepEqual(response.json(), { status: 404, message: 'Book not found', data: null })
  })

  test('every response is application/json; charset=utf-8 with an x-request-id', async () => {
    for (const url of ['/books', '/nope', '/healthz', '/book/abc']) {
      const response = await app().inject({ url, headers: auth })
      assert.equal(response.headers['content-type'], 'application/json; charset=utf-8')
      assert.match(String(response.headers['x-request-id']), /^[0-9a-f-]{36}$/)
    }
  })

  test('/healthz and /readyz: 200 OK', async () => {
    for (const url of ['/healthz', '/readyz']) {
      assert.deepEqual((await app().inject({ url })).json(), { status: 200, message: 'OK', data: null })
    }
  })
})

/** A working in-memory database with some of its book operations (and `ping`) replaced. */
async function databaseWith(overrides: Partial<BookStore> & Partial<Pick<Database, 'ping'>>): Promise<Database> {
  const database = await SqliteDatabase.open(':memory:')
  const books = Object.assign(Object.create(database) as BookStore, overrides)
  return Object.assign(Object.create(database) as Database, overrides, { books })
}

/** Builds an app on `database` whose log lines are collected in `lines`. */
async function appWithLog(database: Database) {
  const lines: Array<Record<string, unknown>> = []
  const stream = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line))
      done()
    }
  })
  const app = await buildApp({ config: testConfig(), database, logger: { level: 'info', stream } })
  return { app, lines }
}

describe('failures of the storage layer', () => {
  test('an unexpected error: 500 Internal server error, no stack or SQL to the client, the stack in the log with the request id', async () => {
    const failure = new Error('SQLITE_ERROR: near "SELEC": syntax error in SELEC * FROM books')
    const { app, lines } = await appWithLog(await databaseWith({ get: async () => Promise.reject(failure) }))
    try {
      const response = await app.inject({ url: '/book/1', headers: auth })
      assert.equal(response.statusCode, 500)
      assert.deepEqual(response.json(), { status: 500, message: 'Internal server error', data: null })
      assert.doesNotMatch(response.body, /SELEC|stack|at /)
      const logged = lines.find((line) => line.msg === 'request failed')
      assert.ok(logged, 'the failure is logged')
      assert.equal(logged.reqId, response.headers['x-request-id'])
      assert.match(String((logged.err as { stack: string }).stack), /SELEC/)
    } finally {
      await app.close()
    }
  })

  test('storage unreachable: 503 Service unavailable on the book routes and /readyz; /healthz stays 200', async () => {
    const down = async () => Promise.reject(new StorageUnavailableError('database down'))
    const { app } = await appWithLog(
      await databaseWith({ get: down, create: down, update: down, delete: down, ping: down, list: () => ({ [Symbol.asyncIterator]: () => ({ next: down }) }) })
    )
    try {
      const requests = [
        { url: '/book/1' },
        { url: '/books' },
        { method: 'POST' as const, url: '/book', payload: { title: 't', author: 'a', year: 1 } },
        { method: 'DELETE' as const, url: '/book/1' }
      ]
      for (const request of requests) {
        const response = await app.inject({ ...request, headers: auth })
        assert.deepEqual(response.json(), { status: 503, message: 'Service unavailable', data: null }, request.url)
      }
      assert.deepEqual((await app.inject({ url: '/readyz' })).json(), { status: 503, message: 'Service unavailable', data: null })
      assert.equal((await app.inject({ url: '/healthz' })).statusCode, 200)
    } finally {
      await app.close()
    }
  })

  test('responses carry exactly id, title, author, year even if the store returns more', async () => {
    const { app } = await appWithLog(
      await databaseWith({ get: async (id) => ({ id, title: 't', author: 'a', year: 1, password: 'x' }) as never })
    )
    try {
      const response = await app.inject({ url: '/book/7', headers: auth })
      assert.deepEqual(response.json().data, { id: 7, title: 't', author: 'a', year: 1 })
    } finally {
      await app.close()
    }
  })
})

describe('request log', () => {
  test('one line per request with method, path, status, duration and request id; never the Authorization header', async () => {
    const { app, lines } = await appWithLog(await SqliteDatabase.open(':memory:'))
    try {
      const token = auth.authorization!.slice('Bearer '.length)
      const response = await app.inject({ method: 'POST', url: '/book', headers: auth, payload: { title: 't', author: 'a', year: 1 } })
      await app.inject({ method: 'POST', url: '/login', payload: { username: 'admin', password: 'wrong-password-value' } })
      const requestLines = lines.filter((line) => line.msg === 'request')
      assert.equal(requestLines.length, 2)
      const first = requestLines[0]!
      assert.equal(first.method, 'POST')
      assert.equal(first.path, '/book')
      assert.equal(first.status, 201)
      assert.equal(typeof first.duration_ms, 'number')
      // Rounded to the microsecond: no float tails such as 2.90735600000005.
      for (const line of requestLines) assert.match(String(line.duration_ms), /^\d+(\.\d{1,3})?$/)
      assert.equal(first.reqId, response.headers['x-request-id'])
      const everything = JSON.stringify(lines)
      assert.ok(!everything.includes(token), 'the token is never logged')
      assert.ok(!everything.includes('wrong-password-value'), 'passwords are never logged')
    } finally {
      await app.close()
    }
  })
})
