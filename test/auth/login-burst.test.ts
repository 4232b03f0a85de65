import assert from 'node:assert/strict'
import { join } from 'node:path'
import { describe, test } from 'node:test'
import { authHeaders, buildTestApp, signToken, TEST_PASSWORD } from '../support/app.js'
import { createPostgresDatabase, engines, openTestDatabase, postgresSkipReason, type TestDatabase } from '../support/engines.js'
import { removeDirectory, startServer, temporaryDirectory, type RunningServer } from '../support/server.js'
import { processSkipReason } from '../support/scope.js'

/**
 * The per-account login limit under a burst (docs/accounts.md "Login limits"): every attempt is
 * reserved in the database before its password is hashed, so wrong passwords sent all at once
 * are checked at most LOGIN_ACCOUNT_FAILURE_LIMIT times plus once per address, however many
 * requests, processes or instances take them.
 */
const FAILURE_LIMIT = 5
const ADDRESSES = 10
const PER_ADDRESS = 6

/** One burst: every address sends PER_ADDRESS wrong passwords at once; the statuses, counted. */
async function burst(send: (address: string, index: number) => Promise<number>): Promise<Record<number, number>> {
  const sends = []
  for (let a = 1; a <= ADDRESSES; a++) for (let i = 0; i < PER_ADDRESS; i++) sends.push(send(`203.0.113.${a}`, sends.length))
  const statuses = await Promise.all(sends)
  const counted: Record<number, number> = {}
  for (const status of statuses) counted[status] = (counted[status] ?? 0) + 1
  return counted
}

/** Checked: the password was hashed and compared (401); refused unchecked: 429. */
function assertBounded(counted: Record<number, number>, context: { diagnostic(message: string): void }) {
  context.diagnostic(`checked (401): ${counted[401] ?? 0}, refused unchecked (429): ${counted[429] ?? 0}`)
  assert.deepEqual(Object.keys(counted).sort(), ['401', '429'], JSON.stringify(counted))
  assert.ok(counted[401]! <= FAILURE_LIMIT + ADDRESSES, `at most ${FAILURE_LIMIT} + ${ADDRESSES} checked: ${JSON.stringify(counted)}`)
  assert.ok(counted[401]! >= FAILURE_LIMIT, JSON.stringify(counted))
}

for (const { engine, skip } of engines) {
  describe(`the per-account login limit under a burst [${engine}]`, { skip }, () => {
    test(`POST /login: ${ADDRESSES} addresses × ${PER_ADDRESS} wrong passwords at once`, async (t) => {
      const own = await openTestDatabase(engine)
      const app = await buildTestApp({ LOGIN_RATE_LIMIT: 100, LOGIN_ACCOUNT_FAILURE_LIMIT: FAILURE_LIMIT }, own.database)
      try {
        const counted = await burst(async (remoteAddress) =>
          (await app.inject({ method: 'POST', url: '/login', remoteAddress, payload: { username: 'admin', password: 'wrong' } })).statusCode)
        assertBounded(counted, t)
        // The owner, from an address that did not fail, is still heard.
        const owner = await app.inject({ method: 'POST', url: '/login', remoteAddress: '198.51.100.9', payload: { username: 'admin', password: TEST_PASSWORD } })
        assert.equal(owner.statusCode, 200)
      } finally {
        await app.close()
        await own.cleanup()
      }
    })

    test('PUT /users/{u}/password: 30 wrong current passwords at once with one token', async (t) => {
      const own = await openTestDatabase(engine)
      const app = await buildTestApp({ LOGIN_RATE_LIMIT: 100, LOGIN_ACCOUNT_FAILURE_LIMIT: FAILURE_LIMIT }, own.database)
      try {
        const headers = authHeaders(signToken({ sub: 'admin', role: 'admin' }))
        const statuses = await Promise.all(Array.from({ length: 30 }, () =>
          app.inject({ method: 'PUT', url: '/users/admin/password', headers, payload: { current_password: 'wrong', new_password: 'a new long passphrase' } })
            .then((response) => response.statusCode)))
        const checked = statuses.filter((status) => status === 401).length
        t.diagnostic(`checked (401): ${checked} of 30`)
        assert.ok(checked <= FAILURE_LIMIT + 1, `at most ${FAILURE_LIMIT} + 1 checked: ${checked} of 30 (${statuses.join(' ')})`)
        assert.equal(statuses.filter((status) => status === 429).length, 30 - checked)
      } finally {
        await app.close()
        await own.cleanup()
      }
    })
  })
}

/** POST /login to `server` from `address` (forwarded: the servers trust the proxy header). */
async function loginTo(server: RunningServer, address: string): Promise<number> {
  const response = await fetch(`${server.url}/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': address },
    body: JSON.stringify({ username: 'admin', password: 'wrong' })
  })
  await response.arrayBuffer()
  return response.status
}

describe('the per-account login limit under a burst, across processes', { skip: processSkipReason }, () => {
  const env = { TRUST_PROXY: 'true', LOGIN_RATE_LIMIT: '100', LOGIN_ACCOUNT_FAILURE_LIMIT: String(FAILURE_LIMIT) }

  test('two processes on one SQLite file', async (t) => {
    const directory = temporaryDirectory()
    const servers: RunningServer[] = []
    try {
      for (let i = 0; i < 2; i++) servers.push(await startServer({ dataDirectory: directory, env: { ...env, DATABASE_URL: join(directory, 'books.db') } }))
      assertBounded(await burst((address, index) => loginTo(servers[index % 2]!, address)), t)
    } finally {
      for (const server of servers) await server.stop()
      removeDirectory(directory)
    }
  })

  test('two instances on one PostgreSQL database', { skip: postgresSkipReason }, async (t) => {
    let database: TestDatabase | undefined
    const servers: RunningServer[] = []
    const directories = [temporaryDirectory(), temporaryDirectory()]
    try {
      database = await createPostgresDatabase()
      for (const directory of directories) servers.push(await startServer({ dataDirectory: directory, env: { ...env, DATABASE_URL: database.url } }))
      assertBounded(await burst((address, index) => loginTo(servers[index % 2]!, address)), t)
    } finally {
      for (const server of servers) await server.stop()
      for (const directory of directories) removeDirectory(directory)
      await database?.drop()
    }
  })
})
