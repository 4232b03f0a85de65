import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { BookServiceError, createClient } from '../../src/client/index.js'
import { TEST_PASSWORD } from '../support/app.js'
import { ACCOUNT_PASSWORD } from '../support/accounts.js'
import { removeDirectory, startServer, temporaryDirectory, type RunningServer } from '../support/server.js'

describe('the typed client: API tokens, against the real server', () => {
  let directory: string
  let server: RunningServer
  before(async () => {
    directory = temporaryDirectory()
    server = await startServer({ dataDirectory: directory })
  })
  after(async () => {
    await server.stop()
    removeDirectory(directory)
  })

  test('createApiToken, listApiTokens (all for admins), revokeApiToken; the errors as BookServiceError', async () => {
    const admin = createClient({ baseUrl: server.url })
    await admin.login('admin', TEST_PASSWORD)
    await admin.createUser({ username: 'carol', password: ACCOUNT_PASSWORD, role: 'editor' })
    const carol = createClient({ baseUrl: server.url })
    await carol.login('carol', ACCOUNT_PASSWORD)

    const created = await carol.createApiToken({ name: 'shop front', role: 'reader', expires_in_days: 7 })
    assert.deepEqual([created.name, created.role, created.last_used_at], ['shop front', 'reader', null])
    let unauthorized = 0
    const program = createClient({ baseUrl: server.url, token: created.token, onUnauthorized: () => unauthorized++ })
    assert.deepEqual(await program.listBooks(), [])
    await assert.rejects(program.createBook({ title: 'T', author: 'A', year: 1 }), { status: 403, message: 'Forbidden' })

    const listed = await carol.listApiTokens()
    assert.deepEqual(listed.map((token) => [token.id, token.expires_at, 'token' in token]), [[created.id, created.expires_at, false]])
    await assert.rejects(carol.listApiTokens({ all: true }), { status: 403 })
    await assert.rejects(carol.createApiToken({ name: 'more', role: 'admin' }), { status: 403 })
    await assert.rejects(carol.createApiToken({ name: '' }), { status: 400, message: 'Invalid input' })
    const everyone = await admin.listApiTokens({ all: true })
    assert.deepEqual(everyone.map((token) => [token.id, token.username]), [[created.id, 'carol']])
    await assert.rejects(admin.revokeApiToken('no-such-token'), (error) => error instanceof BookServiceError && error.status === 404 && error.message === 'Token not found')

    await carol.revokeApiToken(created.id)
    await assert.rejects(program.listBooks(), { status: 401, message: 'Invalid token' })
    assert.equal(unauthorized, 1)
    assert.deepEqual(await carol.listApiTokens(), [])
  })
})
