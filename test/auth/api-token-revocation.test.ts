import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { signToken } from '../support/app.js'
import { ACCOUNT_PASSWORD } from '../support/accounts.js'
import type { Envelope } from '../support/client.js'
import { createPostgresDatabase, postgresSkipReason, type TestDatabase } from '../support/engines.js'
import { removeDirectory, startServer, temporaryDirectory, type RunningServer } from '../support/server.js'

/** One request to a real server with `token`; the status and the envelope. */
async function send(url: string, token: string, method = 'GET', body?: unknown) {
  const response = await fetch(url, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body)
  })
  return { status: response.status, body: (await response.json()) as Envelope }
}

/** Every process and instance refuses a revoked API token within 1 s (docs/api-tokens.md). */
const REVOCATION_BOUND_MS = 1000

/**
 * Asks `url` with `token` until it is refused or {@link REVOCATION_BOUND_MS} has passed since
 * `since`; the last answer.
 */
async function answerAfterRevocation(url: string, token: string, since: number) {
  let answer = await send(url, token)
  while (answer.status === 200 && Date.now() - since < REVOCATION_BOUND_MS) {
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

for (const { where, skip, postgres } of shared) describe(`API token revocation across ${where}`, { skip }, () => {
  let database: TestDatabase | undefined
  let directory: string
  let servers: RunningServer[] = []
  let a: string, b: string
  const admin = signToken()

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

  /** An editor account made on A, and API tokens of it made on A with `roles`, each already used on B. */
  async function tokensUsedOnB(username: string, roles: string[]): Promise<Array<{ id: string; token: string }>> {
    assert.equal((await send(`${a}/users`, admin, 'POST', { username, password: ACCOUNT_PASSWORD, role: 'editor' })).status, 201)
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

  test('revoked on A: 401 Invalid token on B within 1 s, and on A at once', async () => {
    const [token] = await tokensUsedOnB('across-revoked', ['editor'])
    const revoked = await send(`${a}/tokens/${token!.id}`, signToken({ sub: 'across-revoked', role: 'editor' }), 'DELETE')
    const revokedAt = Date.now()
    assert.equal(revoked.status, 200)
    assert.deepEqual((await send(`${a}/books`, token!.token)).body, invalidToken)
    assert.deepEqual((await answerAfterRevocation(`${b}/books`, token!.token, revokedAt)).body, invalidToken)
  })

  test('the account\'s role lowered on A: its editor token is refused on B within 1 s, its reader token is not', async () => {
    const [writer, reading] = await tokensUsedOnB('across-demoted', ['editor', 'reader'])
    assert.equal((await send(`${a}/users/across-demoted`, admin, 'PUT', { role: 'reader' })).status, 200)
    const changedAt = Date.now()
    assert.deepEqual((await send(`${a}/books`, writer!.token)).body, invalidToken)
    assert.deepEqual((await answerAfterRevocation(`${b}/books`, writer!.token, changedAt)).body, invalidToken)
    assert.equal((await send(`${b}/books`, reading!.token)).status, 200)
  })

  test('the account deleted on A: its tokens are refused on B within 1 s', async () => {
    const [token] = await tokensUsedOnB('across-deleted', ['reader'])
    assert.equal((await send(`${a}/users/across-deleted`, admin, 'DELETE')).status, 200)
    const deletedAt = Date.now()
    assert.deepEqual((await send(`${a}/books`, token!.token)).body, invalidToken)
    assert.deepEqual((await answerAfterRevocation(`${b}/books`, token!.token, deletedAt)).body, invalidToken)
  })
})
