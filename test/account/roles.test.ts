import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { signToken } from '../support/app.js'
import type { RunningServer } from '../support/server.js'
import { suiteServer } from '../support/suite.js'
import { processSkipReason } from '../support/scope.js'

/**
 * docs/contract.md "Hardening": a token whose `role` claim is present but is not exactly `reader`,
 * `editor` or `admin` is authenticated with no rights (403 `Forbidden` on every protected route,
 * /users included); a token without a `role` claim keeps every right. Against the real process.
 */

const forbidden = { status: 403, message: 'Forbidden', data: null }
const dune = { title: 'Dune', author: 'Frank Herbert', year: 1965 }

/** Roles that are not one of the three, as other tools or a forger might write them. */
const unreadableRoles: unknown[] = ['Reader', 'ADMIN', 'admin ', ' editor', 'root', '', ['reader'], ['admin'], { name: 'admin' }, null, 1, true]

async function send(server: RunningServer, method: string, path: string, token: string, body?: unknown) {
  const response = await fetch(`${server.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body)
  })
  return { status: response.status, body: (await response.json()) as { data: unknown } }
}

describe('a role claim that is not one of the three (real process)', { skip: processSkipReason }, () => {
  const running = suiteServer()

  test('403 Forbidden on every protected route, /users included, and nothing changes', async () => {
    const full = signToken({ sub: 'tester' })
    const book = (await send(running(), 'POST', '/book', full, dune)).body.data as { id: number }
    const account = { username: 'target', password: 'a long enough passphrase', role: 'reader' }
    assert.equal((await send(running(), 'POST', '/users', full, account)).status, 201)
    const routes: Array<[string, string, unknown?]> = [
      ['GET', '/books'],
      ['GET', '/books?limit=1'],
      ['GET', `/book/${book.id}`],
      ['POST', '/book', dune],
      ['PUT', `/book/${book.id}`, { year: 1 }],
      ['DELETE', `/book/${book.id}`],
      ['GET', '/users'],
      ['POST', '/users', { ...account, username: 'another' }],
      ['PUT', '/users/target', { role: 'admin' }],
      ['DELETE', '/users/target']
    ]
    for (const role of unreadableRoles) {
      for (const claims of [{ role }, { sub: 'admin', role }]) {
        const token = signToken(claims)
        for (const [method, path, body] of routes) {
          const answer = await send(running(), method, path, token, body)
          assert.deepEqual([answer.status, answer.body], [403, forbidden], `${method} ${path} with ${JSON.stringify(claims)}`)
        }
      }
    }
    assert.deepEqual((await send(running(), 'GET', `/book/${book.id}`, full)).body.data, { ...dune, id: book.id })
    const accounts = (await send(running(), 'GET', '/users', full)).body.data as Array<{ username: string; role: string }>
    assert.deepEqual(accounts.map(({ username, role }) => [username, role]), [['admin', 'admin'], ['target', 'reader']])
  })

  test('a token without a role claim keeps every right; the three roles keep theirs', async () => {
    const none = signToken({ sub: 'tool', scope: 'anything' })
    assert.equal((await send(running(), 'GET', '/users', none)).status, 200)
    const created = await send(running(), 'POST', '/book', none, dune)
    assert.equal(created.status, 201)
    const id = (created.body.data as { id: number }).id
    const reader = signToken({ role: 'reader' })
    assert.equal((await send(running(), 'GET', `/book/${id}`, reader)).status, 200)
    assert.equal((await send(running(), 'DELETE', `/book/${id}`, reader)).status, 403)
    assert.equal((await send(running(), 'PUT', `/book/${id}`, signToken({ role: 'editor' }), { year: 2 })).status, 200)
    assert.equal((await send(running(), 'GET', '/users', signToken({ role: 'editor' }))).status, 403)
    assert.equal((await send(running(), 'GET', '/users', signToken({ role: 'admin' }))).status, 200)
  })
})
