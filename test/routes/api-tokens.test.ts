import assert from 'node:assert/strict'
import { test } from 'node:test'
import { createVerifier } from 'fast-jwt'
import type { FastifyInstance } from 'fastify'
import { API_TOKEN_CACHE_MS } from '../../src/auth/api-tokens.js'
import { TEST_SECRET, authHeaders, signToken } from '../support/app.js'
import { ACCOUNT_PASSWORD, createAccount, login } from '../support/accounts.js'
import { describeEachEngine } from '../support/suite.js'

const invalidToken = { status: 401, message: 'Invalid token', data: null }
const forbidden = { status: 403, message: 'Forbidden', data: null }
const notFound = { status: 404, message: 'Token not found', data: null }
const invalidInput = { status: 400, message: 'Invalid input', data: null }
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

const decode = (token: string) => createVerifier({ key: TEST_SECRET, algorithms: ['HS256'] })(token) as Record<string, unknown>
const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** One request with `token`; the status and the body. */
async function send(app: FastifyInstance, token: string, method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: unknown) {
  const response = await app.inject({ method, url, headers: authHeaders(token), payload: payload as never })
  return { status: response.statusCode, body: response.json() }
}

/** Creates an API token through POST /tokens with `token`; its answer's `data` (throws unless 201). */
async function createToken(app: FastifyInstance, token: string, body: Record<string, unknown>) {
  const created = await send(app, token, 'POST', '/tokens', body)
  assert.equal(created.status, 201, JSON.stringify(created.body))
  return created.body.data as { id: string; name: string; role: string; token: string; created_at: string; expires_at: string | null; last_used_at: null }
}

/** A new account of `role` and its login token. */
async function account(app: FastifyInstance, username: string, role: string): Promise<string> {
  await createAccount(app, username, role)
  return login(app, username)
}

describeEachEngine('API tokens', ({ app }) => {
  test('POST /tokens answers the token once; it is a JWT with sub, role, jti and iat, and works until revoked', async () => {
    const editor = await account(app(), 'tok-basic', 'editor')
    const created = await send(app(), editor, 'POST', '/tokens', { name: 'catalogue sync' })
    assert.equal(created.status, 201)
    assert.equal(created.body.message, 'Token created successfully')
    const data = created.body.data
    assert.deepEqual(Object.keys(data).sort(), ['created_at', 'expires_at', 'id', 'last_used_at', 'name', 'role', 'token'])
    assert.match(data.id, UUID)
    assert.deepEqual([data.name, data.role, data.expires_at, data.last_used_at], ['catalogue sync', 'editor', null, null])
    const claims = decode(data.token)
    assert.deepEqual([claims.sub, claims.role, claims.jti, claims.exp], ['tok-basic', 'editor', data.id, undefined])
    assert.equal((claims.iat as number) * 1000, Date.parse(data.created_at))

    // It carries its role's rights.
    assert.equal((await send(app(), data.token, 'POST', '/book', { title: 'T', author: 'A', year: 1 })).status, 201)
    assert.deepEqual((await send(app(), data.token, 'GET', '/users')).body, forbidden)

    const revoked = await send(app(), editor, 'DELETE', `/tokens/${data.id}`)
    assert.deepEqual(revoked, { status: 200, body: { status: 200, message: 'Token revoked successfully', data: null } })
    assert.deepEqual((await send(app(), data.token, 'GET', '/books')).body, invalidToken)
    assert.deepEqual((await send(app(), editor, 'DELETE', `/tokens/${data.id}`)).body, notFound)
  })

  test('expires_in_days sets exp and expires_at; the list is newest first and never shows the token', async () => {
    const reader = await account(app(), 'tok-list', 'reader')
    const first = await createToken(app(), reader, { name: 'first', expires_in_days: 30 })
    const exp = decode(first.token).exp as number
    assert.equal(exp, (decode(first.token).iat as number) + 30 * 86_400)
    assert.equal(first.expires_at, new Date(exp * 1000).toISOString())
    const second = await createToken(app(), reader, { name: 'second', role: 'reader', expires_in_days: 3650 })
    const listed = await send(app(), reader, 'GET', '/tokens')
    assert.equal(listed.body.message, 'Tokens retrieved successfully')
    assert.deepEqual(listed.body.data.map((token: { id: string }) => token.id), [second.id, first.id])
    for (const token of listed.body.data) {
      assert.deepEqual(Object.keys(token).sort(), ['created_at', 'expires_at', 'id', 'last_used_at', 'name', 'role'])
    }
    assert.doesNotMatch(JSON.stringify(listed.body), new RegExp(first.token.split('.')[2]!))
  })

  test('a bad body, or a bad all, is 400 Invalid input; nothing is created', async () => {
    const editor = await account(app(), 'tok-bad', 'editor')
    const bodies = [
      {}, { name: '' }, { name: 'x'.repeat(101) }, { name: 'two\nlines' }, { name: 7 }, { name: 'n', role: 'root' }, { name: 'n', role: 'Admin' },
      { name: 'n', expires_in_days: 0 }, { name: 'n', expires_in_days: 3651 }, { name: 'n', expires_in_days: 1.5 }, { name: 'n', expires_in_days: '30' },
      { name: 'n', expires_in_days: null }, [], 'name'
    ]
    for (const body of bodies) assert.deepEqual((await send(app(), editor, 'POST', '/tokens', body)).body, invalidInput, JSON.stringify(body))
    const raw = await app().inject({ method: 'POST', url: '/tokens', headers: { ...authHeaders(editor), 'content-type': 'application/json' }, payload: '{"name":' })
    assert.deepEqual(raw.json(), invalidInput)
    assert.deepEqual((await send(app(), editor, 'GET', '/tokens?all=yes')).body, invalidInput)
    assert.deepEqual((await send(app(), editor, 'GET', '/tokens')).body.data, [])
    // 100 characters (code points, an emoji counting one) is the longest name.
    assert.equal((await send(app(), editor, 'POST', '/tokens', { name: '📚'.repeat(100) })).status, 201)
  })

  test('the role: at most the caller\'s (403 Forbidden above it), the caller\'s by default', async () => {
    const reader = await account(app(), 'tok-reader', 'reader')
    assert.deepEqual((await send(app(), reader, 'POST', '/tokens', { name: 'n', role: 'editor' })).body, forbidden)
    assert.deepEqual((await send(app(), reader, 'POST', '/tokens', { name: 'n', role: 'admin' })).body, forbidden)
    assert.deepEqual((await send(app(), reader, 'GET', '/tokens')).body.data, [])
    assert.equal((await createToken(app(), reader, { name: 'n' })).role, 'reader')

    const editor = await account(app(), 'tok-editor', 'editor')
    const readOnly = await createToken(app(), editor, { name: 'read only', role: 'reader' })
    assert.deepEqual((await send(app(), readOnly.token, 'POST', '/book', { title: 'T', author: 'A', year: 1 })).body, forbidden)
    // An API token makes no token above its own role, though its account could.
    assert.deepEqual((await send(app(), readOnly.token, 'POST', '/tokens', { name: 'n', role: 'editor' })).body, forbidden)
    assert.equal((await createToken(app(), readOnly.token, { name: 'n' })).role, 'reader')
    // A token without a role claim: its account's role.
    assert.equal((await createToken(app(), signToken({ sub: 'tok-editor' }), { name: 'n' })).role, 'editor')
    // A token whose sub names no account owns no token and makes none.
    assert.deepEqual((await send(app(), signToken({ sub: 'nobody', role: 'admin' }), 'POST', '/tokens', { name: 'n' })).body, forbidden)
    assert.deepEqual((await send(app(), signToken({ role: 'admin' }), 'POST', '/tokens', { name: 'n' })).body, forbidden)
  })

  test('another account\'s token is 404 Token not found; an admin lists (all=true) and revokes anyone\'s', async () => {
    const ann = await account(app(), 'tok-ann', 'editor')
    const bob = await account(app(), 'tok-bob', 'editor')
    const annToken = await createToken(app(), ann, { name: 'ann\'s' })
    assert.deepEqual((await send(app(), bob, 'DELETE', `/tokens/${annToken.id}`)).body, notFound)
    assert.deepEqual((await send(app(), bob, 'DELETE', '/tokens/not-an-id')).body, notFound)
    assert.deepEqual((await send(app(), bob, 'DELETE', `/tokens/${'0'.repeat(8)}-0000-0000-0000-${'0'.repeat(12)}`)).body, notFound)
    assert.deepEqual((await send(app(), bob, 'GET', '/tokens')).body.data, [])
    assert.deepEqual((await send(app(), bob, 'GET', '/tokens?all=true')).body, forbidden)
    assert.equal((await send(app(), annToken.token, 'GET', '/books')).status, 200)

    const admin = await account(app(), 'tok-admin', 'admin')
    const all = await send(app(), admin, 'GET', '/tokens?all=true')
    const listed = all.body.data.find((token: { id: string }) => token.id === annToken.id)
    assert.deepEqual(listed.username, 'tok-ann')
    assert.ok(all.body.data.every((token: { username?: string }) => typeof token.username === 'string'))
    assert.equal((await send(app(), admin, 'GET', '/tokens?all=false')).body.data.length, 0)
    assert.equal((await send(app(), admin, 'DELETE', `/tokens/${annToken.id}`)).status, 200)
    assert.deepEqual((await send(app(), annToken.token, 'GET', '/books')).body, invalidToken)
  })

  test('a token above its account\'s role is refused while the role is lowered; a password change keeps it', async () => {
    const editor = await account(app(), 'tok-demoted', 'editor')
    const writer = await createToken(app(), editor, { name: 'writer' })
    const reading = await createToken(app(), editor, { name: 'reading', role: 'reader' })
    const admin = signToken()
    assert.equal((await send(app(), admin, 'PUT', '/users/tok-demoted', { role: 'reader' })).status, 200)
    assert.deepEqual((await send(app(), writer.token, 'GET', '/books')).body, invalidToken)
    assert.equal((await send(app(), reading.token, 'GET', '/books')).status, 200)
    // Not above it any more: it works again.
    assert.equal((await send(app(), admin, 'PUT', '/users/tok-demoted', { role: 'editor' })).status, 200)
    assert.equal((await send(app(), writer.token, 'GET', '/books')).status, 200)

    const relogged = await login(app(), 'tok-demoted')
    const changed = await send(app(), relogged, 'PUT', '/users/tok-demoted/password', { current_password: ACCOUNT_PASSWORD, new_password: 'another long passphrase' })
    assert.equal(changed.status, 200)
    assert.deepEqual((await send(app(), relogged, 'GET', '/books')).body, invalidToken, 'the login token is revoked')
    assert.equal((await send(app(), writer.token, 'GET', '/books')).status, 200, 'the API token is not')
  })

  test('deleting the account deletes its tokens; an account made again with its name does not revive them', async () => {
    const user = await account(app(), 'tok-gone', 'editor')
    const token = await createToken(app(), user, { name: 'n' })
    assert.equal((await send(app(), token.token, 'GET', '/books')).status, 200)
    assert.equal((await send(app(), signToken(), 'DELETE', '/users/tok-gone')).status, 200)
    assert.deepEqual((await send(app(), token.token, 'GET', '/books')).body, invalidToken)
    await createAccount(app(), 'TOK-GONE', 'editor')
    assert.deepEqual((await send(app(), token.token, 'GET', '/books')).body, invalidToken)
    assert.deepEqual((await send(app(), await login(app(), 'tok-gone'), 'GET', '/tokens')).body.data, [])
    assert.ok(!(await send(app(), signToken(), 'GET', '/tokens?all=true')).body.data.some((listed: { id: string }) => listed.id === token.id))
  })

  test('only a token the service issued and keeps passes as an API token; any other signed token is as before', async () => {
    await createAccount(app(), 'tok-forged', 'admin')
    const marker = { book_service_api_token: true }
    const unknown = signToken({ ...marker, sub: 'tok-forged', role: 'admin', jti: '0b0f6a4e-3c1d-4f55-9a8e-2d7c1b9e4f10' })
    assert.deepEqual((await send(app(), unknown, 'GET', '/books')).body, invalidToken)
    assert.deepEqual((await send(app(), signToken({ ...marker, sub: 'tok-forged', role: 'admin', jti: 7 }), 'GET', '/books')).body, invalidToken)
    const issued = await createToken(app(), await login(app(), 'tok-forged'), { name: 'n', role: 'editor' })
    const jti = issued.id
    // The same id with another subject or role is not that token.
    assert.deepEqual((await send(app(), signToken({ ...marker, sub: 'tok-reader', role: 'editor', jti }), 'GET', '/books')).body, invalidToken)
    assert.deepEqual((await send(app(), signToken({ ...marker, sub: 'tok-forged', role: 'admin', jti }), 'GET', '/books')).body, invalidToken)
    assert.equal((await send(app(), signToken({ ...marker, sub: 'TOK-FORGED', role: 'editor', jti }), 'GET', '/books')).status, 200)
    // A token minted elsewhere with a jti of its own, without the claim, is accepted as the contract says.
    assert.equal((await send(app(), signToken({ sub: 'tok-forged', jti: 'anything' }), 'GET', '/books')).status, 200)
  })

  test('last_used_at: set by the first use, then written at most once a minute', async () => {
    const user = await account(app(), 'tok-used', 'reader')
    const token = await createToken(app(), user, { name: 'n' })
    const lastUsed = async () => (await send(app(), user, 'GET', '/tokens')).body.data[0].last_used_at as string | null
    assert.equal(await lastUsed(), null)
    const before = Date.now()
    assert.equal((await send(app(), token.token, 'GET', '/books')).status, 200)
    let first: string | null = null
    for (let tries = 0; first === null && tries < 50; tries++) {
      await wait(20)
      first = await lastUsed()
    }
    assert.ok(first !== null && Date.parse(first) >= before - 1000, `recorded: ${first}`)
    // Used again after the standing was read again from the database: not written again.
    await wait(API_TOKEN_CACHE_MS + 100)
    assert.equal((await send(app(), token.token, 'GET', '/books')).status, 200)
    await wait(100)
    assert.equal(await lastUsed(), first)
  })

  test('the /tokens routes need a token; a token with an unreadable role has no right to them', async () => {
    const none = await app().inject({ method: 'GET', url: '/tokens' })
    assert.deepEqual(none.json(), { status: 401, message: 'Authorization token required', data: null })
    assert.deepEqual((await send(app(), signToken({ role: 'Reader' }), 'GET', '/tokens')).body, forbidden)
  })
  // Logins of many accounts: the per-client login limit is raised (login.test.ts tests the limit).
}, { LOGIN_RATE_LIMIT: 1000 })

describeEachEngine('API tokens with AUTH_ENABLED=false', ({ app }) => {
  test('/tokens still answers 401 without a token', async () => {
    for (const [method, url] of [['GET', '/tokens'], ['POST', '/tokens'], ['DELETE', '/tokens/x']] as const) {
      const response = await app().inject({ method, url })
      assert.deepEqual(response.json(), { status: 401, message: 'Authorization token required', data: null }, `${method} ${url}`)
    }
  })
}, { AUTH_ENABLED: false })
