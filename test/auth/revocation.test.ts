import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { TEST_PASSWORD, signToken } from '../support/app.js'
import { ACCOUNT_PASSWORD } from '../support/accounts.js'
import type { Envelope } from '../support/client.js'
import { createPostgresDatabase, postgresSkipReason, type TestDatabase } from '../support/engines.js'
import { removeDirectory, startServer, temporaryDirectory, type RunningServer } from '../support/server.js'
import { processSkipReason } from '../support/scope.js'

/** One request to a real server with `token`; the status and the envelope. */
async function send(url: string, token: string | undefined, method = 'GET', body?: unknown) {
  const response = await fetch(url, {
    method,
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body)
  })
  return { status: response.status, body: (await response.json()) as Envelope }
}

async function login(base: string, username: string, password = ACCOUNT_PASSWORD): Promise<string> {
  const { status, body } = await send(`${base}/login`, undefined, 'POST', { username, password })
  assert.equal(status, 200, JSON.stringify(body))
  return body.data.token
}

/** Within 5 s every instance refuses a revoked login token (docs/accounts.md "Accounts and roles"). */
const REVOCATION_BOUND_MS = 5000

/** Within 1 s every process and instance refuses a revoked API token (docs/api-tokens.md "The token"). */
const API_TOKEN_REVOCATION_BOUND_MS = 1000

/** Asks `url` with `token` until it is refused or `boundMs` have passed since `since`; the last answer. */
async function answerAfter(url: string, token: string, since: number, boundMs: number) {
  let answer = await send(url, token)
  while (answer.status === 200 && Date.now() - since < boundMs) {
    await new Promise((resolve) => setTimeout(resolve, 50))
    answer = await send(url, token)
  }
  return answer
}

const invalidToken = { status: 401, message: 'Invalid token', data: null }

/** Two instances on one PostgreSQL database, and two processes on one SQLite file (docs/several-instances.md "Running several instances"). */
const shared = [
  { where: 'two instances on one PostgreSQL database', skip: postgresSkipReason, postgres: true },
  { where: 'two processes on one SQLite file', skip: undefined, postgres: false }
]

for (const { where, skip, postgres } of shared) describe(`revocation across ${where}`, { skip: processSkipReason ?? skip }, () => {
  let database: TestDatabase | undefined
  let directory: string
  let servers: RunningServer[] = []
  let a: string, b: string

  before(async () => {
    database = postgres ? await createPostgresDatabase() : undefined
    directory = temporaryDirectory()
    const env: Record<string, string> = database ? { DATABASE_URL: database.url } : {}
    servers = await Promise.all([0, 1].map(() => startServer({ dataDirectory: directory, env })))
    ;[a, b] = servers.map((server) => server.url) as [string, string]
  })

  after(async () => {
    const codes = await Promise.all(servers.map((server) => server.stop('SIGTERM')))
    await database?.drop()
    removeDirectory(directory)
    assert.deepEqual(codes, [0, 0])
  })

  test('the bootstrap admin logs in on both; an account made on A logs in and works on B', async () => {
    for (const base of [a, b]) assert.equal((await send(`${base}/users`, await login(base, 'admin', TEST_PASSWORD))).status, 200)
    const admin = await login(a, 'admin', TEST_PASSWORD)
    assert.equal((await send(`${a}/users`, admin, 'POST', { username: 'shared', password: ACCOUNT_PASSWORD, role: 'reader' })).status, 201)
    const token = await login(b, 'shared')
    assert.equal((await send(`${a}/books`, token)).status, 200)
    assert.deepEqual((await send(`${b}/book`, token, 'POST', { title: 'T', author: 'A', year: 1 })).body, { status: 403, message: 'Forbidden', data: null })
  })

  for (const change of ['delete', 'password', 'role'] as const) {
    test(`after a ${change} change made on A, the account's earlier token answers 401 Invalid token on B within 5 s`, async () => {
      const admin = signToken()
      const username = `across-${change}`
      assert.equal((await send(`${a}/users`, admin, 'POST', { username, password: ACCOUNT_PASSWORD, role: 'editor' })).status, 201)
      const token = await login(a, username)
      // B has checked (and cached) the token's generation before the change.
      assert.equal((await send(`${b}/books`, token)).status, 200)
      const changed =
        change === 'delete'
          ? await send(`${a}/users/${username}`, admin, 'DELETE')
          : await send(`${a}/users/${username}`, admin, 'PUT', change === 'password' ? { password: 'a new passphrase!' } : { role: 'reader' })
      assert.equal(changed.status, 200)
      const changedAt = Date.now()
      assert.deepEqual((await answerAfter(`${b}/books`, token, changedAt, REVOCATION_BOUND_MS)).body, invalidToken)
      // And on A at once (the instance that made the change).
      assert.deepEqual((await send(`${a}/books`, token)).body, invalidToken)
    })
  }

  /** An editor account made on A, and API tokens of it made on A with `roles`, each already used on B. */
  async function apiTokensUsedOnB(username: string, roles: string[]): Promise<Array<{ id: string; token: string }>> {
    assert.equal((await send(`${a}/users`, signToken(), 'POST', { username, password: ACCOUNT_PASSWORD, role: 'editor' })).status, 201)
    const tokens = []
    for (const role of roles) {
      const created = await send(`${a}/tokens`, signToken({ sub: username, role: 'editor' }), 'POST', { name: `${role} on B`, role })
      assert.equal(created.status, 201, JSON.stringify(created.body))
      // B reads (and caches) the token's standing before the change.
      assert.equal((await send(`${b}/books`, created.body.data.token)).status, 200)
      tokens.push(created.body.data as { id: string; token: string })
    }
    return tokens
  }

  test('an API token revoked on A: 401 Invalid token on B within 1 s, and on A at once', async () => {
    const [apiToken] = await apiTokensUsedOnB('api-revoked', ['editor'])
    const revoked = await send(`${a}/tokens/${apiToken!.id}`, signToken({ sub: 'api-revoked', role: 'editor' }), 'DELETE')
    const revokedAt = Date.now()
    assert.equal(revoked.status, 200)
    assert.deepEqual((await send(`${a}/books`, apiToken!.token)).body, invalidToken)
    assert.deepEqual((await answerAfter(`${b}/books`, apiToken!.token, revokedAt, API_TOKEN_REVOCATION_BOUND_MS)).body, invalidToken)
  })

  test('the account\'s role lowered on A: its editor API token is refused on B within 1 s, its reader token is not', async () => {
    const [writer, reading] = await apiTokensUsedOnB('api-demoted', ['editor', 'reader'])
    assert.equal((await send(`${a}/users/api-demoted`, signToken(), 'PUT', { role: 'reader' })).status, 200)
    const changedAt = Date.now()
    assert.deepEqual((await send(`${a}/books`, writer!.token)).body, invalidToken)
    assert.deepEqual((await answerAfter(`${b}/books`, writer!.token, changedAt, API_TOKEN_REVOCATION_BOUND_MS)).body, invalidToken)
    assert.equal((await send(`${b}/books`, reading!.token)).status, 200)
  })

  test('the account deleted on A: its API tokens are refused on B within 1 s', async () => {
    const [apiToken] = await apiTokensUsedOnB('api-deleted', ['reader'])
    assert.equal((await send(`${a}/users/api-deleted`, signToken(), 'DELETE')).status, 200)
    const deletedAt = Date.now()
    assert.deepEqual((await send(`${a}/books`, apiToken!.token)).body, invalidToken)
    assert.deepEqual((await answerAfter(`${b}/books`, apiToken!.token, deletedAt, API_TOKEN_REVOCATION_BOUND_MS)).body, invalidToken)
  })
})
