import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { FastifyInstance } from 'fastify'
import pg from 'pg'
import { PostgresDatabase } from '../../../src/storage/postgres/postgres-database.js'
import { authHeaders, buildTestApp } from '../../support/app.js'
import { call, eventually } from '../../support/client.js'
import { POSTGRES_ADMIN_URL, createPostgresDatabase, postgresSkipReason, type TestDatabase } from '../../support/engines.js'
import { clusterSkipReason, startThrowawayCluster, type ThrowawayCluster } from '../../support/cluster.js'
import { postgresTarget, startProxy, through, type TcpProxy } from '../../support/proxy.js'
import { removeDirectory, startServer, temporaryDirectory, type RunningServer } from '../../support/server.js'

const UNAVAILABLE = { status: 503, message: 'Service unavailable', data: null }
const OK = { status: 200, message: 'OK', data: null }

/** How many server connections are open to `database` (other than this query's own). */
async function connectionsTo(database: TestDatabase): Promise<number> {
  const client = new pg.Client({ connectionString: POSTGRES_ADMIN_URL })
  await client.connect()
  try {
    const { rows } = await client.query<{ count: string }>(
      'SELECT count(*) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
      [new URL(database.url).pathname.slice(1)]
    )
    return Number(rows[0]!.count)
  } finally {
    await client.end()
  }
}

describe('PostgreSQL going away under a running server process', { skip: postgresSkipReason }, () => {
  let database: TestDatabase
  let proxy: TcpProxy
  let directory: string
  let server: RunningServer

  before(async () => {
    database = await createPostgresDatabase()
    proxy = await startProxy(postgresTarget())
    directory = temporaryDirectory()
    server = await startServer({ dataDirectory: directory, env: { DATABASE_URL: through(database.url, proxy.port) } })
  })

  after(async () => {
    await server?.stop('SIGKILL')
    await proxy?.close()
    await database?.drop()
    removeDirectory(directory)
  })

  test('database cut: 503 on the book routes and /readyz, /healthz 200, no crash; back by itself when it returns', async () => {
    const created = await call(`${server.url}/book`, 'POST', { title: 'Neuromancer', author: 'William Gibson', year: 1984 })
    assert.equal(created.status, 201)
    const id = created.body.data.id
    assert.deepEqual((await call(`${server.url}/readyz`)).body, OK)

    await proxy.cut()
    // The pooled connection that was idle when the database went away is reported, not fatal.
    await eventually('the lost idle connection to be logged', async () =>
      server.output().includes('database connection lost; reconnecting on the next query')
    )
    const requests: Array<[string, string, unknown?]> = [
      ['GET', '/books'],
      ['GET', `/book/${id}`],
      ['POST', '/book', { title: 'Count Zero', author: 'William Gibson', year: 1986 }],
      ['PUT', `/book/${id}`, { year: 1985 }],
      ['DELETE', `/book/${id}`]
    ]
    for (const [method, path, body] of requests) {
      const response = await call(`${server.url}${path}`, method, body)
      assert.deepEqual({ status: response.status, body: response.body }, { status: 503, body: UNAVAILABLE }, `${method} ${path}`)
    }
    assert.deepEqual((await call(`${server.url}/readyz`)).body, UNAVAILABLE)
    assert.deepEqual((await call(`${server.url}/healthz`)).body, OK)
    assert.equal(server.process.exitCode, null, 'the process is still running')

    await proxy.restore()
    await eventually('/readyz to answer 200 again', async () => (await call(`${server.url}/readyz`)).status === 200)
    assert.deepEqual((await call(`${server.url}/book/${id}`)).body.data, { id, title: 'Neuromancer', author: 'William Gibson', year: 1984 })
    assert.equal((await call(`${server.url}/book/${id}`, 'PUT', { year: 1985 })).status, 200)
    assert.equal((await call(`${server.url}/book`, 'POST', { title: 'Count Zero', author: 'William Gibson', year: 1986 })).status, 201)
  })

  test('database cut while requests are in flight: each answers 200 or 503, and the process survives', async () => {
    for (let round = 0; round < 3; round++) {
      const inFlight = Array.from({ length: 60 }, () => call(`${server.url}/books`))
      await new Promise((resolve) => setTimeout(resolve, 5 + round * 10))
      await proxy.cut()
      const statuses = (await Promise.all(inFlight)).map((response) => response.status)
      assert.ok(statuses.every((status) => status === 200 || status === 503), `statuses ${statuses.join(',')}`)
      assert.equal(server.process.exitCode, null, 'the process is still running')
      await proxy.restore()
      await eventually('/readyz to answer 200 again', async () => (await call(`${server.url}/readyz`)).status === 200)
    }
  })
})

describe('a real PostgreSQL server stopped and started again under a running server process', { skip: clusterSkipReason }, () => {
  let cluster: ThrowawayCluster
  let directory: string
  let server: RunningServer

  before(async () => {
    cluster = await startThrowawayCluster()
    directory = temporaryDirectory()
    server = await startServer({ dataDirectory: directory, env: { DATABASE_URL: cluster.url } })
  })

  after(async () => {
    await server?.stop('SIGKILL')
    cluster?.destroy()
    removeDirectory(directory)
  })

  test('fast shutdown: 503 while it is down, /healthz 200, no crash; serving again once it is back', async () => {
    const created = await call(`${server.url}/book`, 'POST', { title: 'Dune', author: 'Frank Herbert', year: 1965 })
    assert.equal(created.status, 201)
    const id = created.body.data.id

    cluster.stop() // idle sessions get 57P01 "terminating connection due to administrator command"
    await eventually('the lost idle connection to be logged', async () =>
      server.output().includes('database connection lost; reconnecting on the next query')
    )
    for (const path of ['/books', `/book/${id}`]) assert.deepEqual((await call(`${server.url}${path}`)).body, UNAVAILABLE, path)
    assert.deepEqual((await call(`${server.url}/readyz`)).body, UNAVAILABLE)
    assert.deepEqual((await call(`${server.url}/healthz`)).body, OK)
    assert.equal(server.process.exitCode, null, 'the process is still running')

    cluster.start()
    await eventually('/readyz to answer 200 again', async () => (await call(`${server.url}/readyz`)).status === 200)
    assert.deepEqual((await call(`${server.url}/book/${id}`)).body.data, { id, title: 'Dune', author: 'Frank Herbert', year: 1965 })
    assert.equal(await server.stop('SIGTERM'), 0)
  })
})

describe('PostgreSQL going silent (connections stay open, nothing answers) [in-process]', { skip: postgresSkipReason }, () => {
  let database: TestDatabase
  let proxy: TcpProxy
  let app: FastifyInstance

  before(async () => {
    database = await createPostgresDatabase()
    proxy = await startProxy(postgresTarget())
    const storage = await PostgresDatabase.open(through(database.url, proxy.port), {
      poolSize: 2,
      startupTimeoutMs: 0,
      connectTimeoutMs: 2000,
      queryTimeoutMs: 2000
    })
    app = await buildTestApp({}, storage)
  })

  after(async () => {
    await proxy?.restore()
    await app?.close()
    await proxy?.close()
    await database?.drop()
  })

  test('requests and /readyz answer 503 after the time-outs instead of hanging, then recover', { timeout: 30_000 }, async () => {
    assert.equal((await app.inject({ url: '/books', headers: authHeaders() })).statusCode, 200)
    proxy.freeze()
    const list = await app.inject({ url: '/books', headers: authHeaders() })
    assert.deepEqual({ status: list.statusCode, body: list.json() }, { status: 503, body: UNAVAILABLE })
    const ready = await app.inject({ url: '/readyz' })
    assert.deepEqual({ status: ready.statusCode, body: ready.json() }, { status: 503, body: UNAVAILABLE })
    await proxy.restore()
    await eventually('/readyz to answer 200 again', async () => (await app.inject({ url: '/readyz' })).statusCode === 200)
    assert.equal((await app.inject({ url: '/books', headers: authHeaders() })).statusCode, 200)
  })

  test('a POST with Idempotency-Key answers 503 while the database is silent (its ROLLBACK waits on nothing), then creates once it is back', { timeout: 30_000 }, async () => {
    const post = (key = 'silent-database-1') =>
      app.inject({
        method: 'POST',
        url: '/book',
        headers: { ...authHeaders(), 'idempotency-key': key },
        payload: { title: 'The Dispossessed', author: 'Ursula K. Le Guin', year: 1974 }
      })
    proxy.freeze()
    // Both pool connections: each request's transaction times out, and neither keeps its slot.
    const during = await Promise.all([post(), post('silent-database-2'), post('silent-database-3')])
    for (const response of during) assert.deepEqual({ status: response.statusCode, body: response.json() }, { status: 503, body: UNAVAILABLE })
    await proxy.restore()
    await eventually('/readyz to answer 200 again', async () => (await app.inject({ url: '/readyz' })).statusCode === 200)
    const created = await post()
    assert.equal(created.statusCode, 201)
    assert.equal((await post()).json().data.id, created.json().data.id, 'the replay answers the same book')
  })
})

describe('PostgreSQL pool shutdown', { skip: postgresSkipReason }, () => {
  test('closing the app drains the pool: every connection to the database is closed', async () => {
    const database = await createPostgresDatabase()
    try {
      const storage = await PostgresDatabase.open(database.url, { poolSize: 4, startupTimeoutMs: 0 })
      const app = await buildTestApp({}, storage)
      const responses = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          app.inject({ method: 'POST', url: '/book', headers: authHeaders(), payload: { title: `T${i}`, author: 'A', year: 2000 } })
        )
      )
      assert.ok(responses.every((response) => response.statusCode === 201))
      assert.ok((await connectionsTo(database)) > 0, 'the pool holds connections while the app runs')
      await app.close()
      // Idle connections would otherwise linger for the pool's 10 s idle time-out.
      await eventually('the connections to close', async () => (await connectionsTo(database)) === 0, 5000)
    } finally {
      await database.drop()
    }
  })
})
