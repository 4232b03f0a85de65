import assert from 'node:assert/strict'
import { test } from 'node:test'
import { authHeaders, signToken } from '../support/app.js'
import { ACCOUNT_PASSWORD, createAccount, login } from '../support/accounts.js'
import { describeEachEngine } from '../support/suite.js'

const NEW_PASSWORD = 'another long passphrase'
const envelope = (status: number, message: string) => ({ status, message, data: null })

/**
 * `PUT /users/{username}/password` (docs/accounts.md "Accounts and roles"), in-process on both engines:
 * every role changes its own password with the current one; a wrong current password is 401 and
 * changes nothing; another account's path is 403; a bad body is 400; the change revokes the
 * account's earlier tokens and the new password logs in.
 */
// Many logins in one suite: the per-client login limit is raised (login.test.ts tests the limit).
describeEachEngine('changing your own password', ({ app }) => {
  const change = (token: string, username: string, payload: unknown) =>
    app().inject({ method: 'PUT', url: `/users/${encodeURIComponent(username)}/password`, headers: { ...authHeaders(token), 'content-type': 'application/json' }, payload: typeof payload === 'string' ? payload : JSON.stringify(payload) })

  test('each role changes its own password; the old token is revoked, the new password logs in, the old one not', async () => {
    for (const role of ['reader', 'editor', 'admin']) {
      const username = `self-${role}`
      await createAccount(app(), username, role)
      const token = await login(app(), username)
      const response = await change(token, username.toUpperCase(), { current_password: ACCOUNT_PASSWORD, new_password: NEW_PASSWORD })
      assert.equal(response.statusCode, 200, response.body)
      assert.equal(response.json().message, 'Password changed successfully')
      assert.deepEqual([response.json().data.username, response.json().data.role], [username, role])
      assert.doesNotMatch(response.body, /scrypt|passphrase/)
      assert.deepEqual((await app().inject({ url: '/books', headers: authHeaders(token) })).json(), envelope(401, 'Invalid token'))
      assert.equal((await app().inject({ method: 'POST', url: '/login', payload: { username, password: ACCOUNT_PASSWORD } })).statusCode, 401)
      const fresh = await login(app(), username, NEW_PASSWORD)
      assert.equal((await app().inject({ url: '/books', headers: authHeaders(fresh) })).statusCode, 200)
    }
  })

  test('a wrong current password: 401 Current password is incorrect, nothing changed, the token still valid', async () => {
    await createAccount(app(), 'self-wrong', 'reader')
    const token = await login(app(), 'self-wrong')
    const response = await change(token, 'self-wrong', { current_password: 'not the password', new_password: NEW_PASSWORD })
    assert.deepEqual(response.json(), envelope(401, 'Current password is incorrect'))
    assert.equal(response.statusCode, 401)
    assert.equal((await app().inject({ url: '/books', headers: authHeaders(token) })).statusCode, 200)
    await login(app(), 'self-wrong')
  })

  test('another account, even for an admin: 403 Forbidden, nothing changed; a token without the account: 403', async () => {
    await createAccount(app(), 'self-victim', 'reader')
    await createAccount(app(), 'self-boss', 'admin')
    const boss = await login(app(), 'self-boss')
    assert.deepEqual((await change(boss, 'self-victim', { current_password: ACCOUNT_PASSWORD, new_password: NEW_PASSWORD })).json(), envelope(403, 'Forbidden'))
    assert.deepEqual((await change(signToken(), 'self-victim', { current_password: ACCOUNT_PASSWORD, new_password: NEW_PASSWORD })).json(), envelope(403, 'Forbidden'))
    // A token whose role the service cannot read has no rights at all.
    assert.deepEqual((await change(signToken({ sub: 'self-victim', role: 'Reader' }), 'self-victim', { current_password: ACCOUNT_PASSWORD, new_password: NEW_PASSWORD })).json(), envelope(403, 'Forbidden'))
    await login(app(), 'self-victim')
  })

  test('no token: 401; an account deleted since: 404; bad bodies: 400 Invalid input, nothing changed', async () => {
    assert.deepEqual((await app().inject({ method: 'PUT', url: '/users/x/password', payload: {} })).json(), envelope(401, 'Authorization token required'))
    assert.deepEqual((await change(signToken({ sub: 'nobody-here' }), 'nobody-here', { current_password: 'x', new_password: NEW_PASSWORD })).json(), envelope(404, 'User not found'))
    await createAccount(app(), 'self-bodies', 'editor')
    const token = await login(app(), 'self-bodies')
    const bad: unknown[] = ['{not json', [], null, {}, { current_password: ACCOUNT_PASSWORD }, { new_password: NEW_PASSWORD }, { current_password: ACCOUNT_PASSWORD, new_password: 'short-11chr' }, { current_password: 7, new_password: NEW_PASSWORD }, { current_password: ACCOUNT_PASSWORD, new_password: 'p'.repeat(1025) }]
    for (const payload of bad) {
      const response = await change(token, 'self-bodies', payload)
      assert.deepEqual(response.json(), envelope(400, 'Invalid input'), JSON.stringify(payload))
    }
    await login(app(), 'self-bodies')
  })
}, { LOGIN_RATE_LIMIT: 1000 })
