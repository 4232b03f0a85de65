import assert from 'node:assert/strict'
import { test } from 'node:test'
import { authHeaders, signToken } from '../support/app.js'
import { ACCOUNT_PASSWORD, adminLogin, createAccount, login } from '../support/accounts.js'
import { describeEachEngine } from '../support/suite.js'

const dune = { title: 'Dune', author: 'Frank Herbert', year: 1965 }
const forbidden = { status: 403, message: 'Forbidden', data: null }

/** Every route with the right it needs, as inject options (ids and usernames that exist). */
const routes = (id: number, username: string) => [
  { right: 'read', method: 'GET' as const, url: '/books' },
  { right: 'read', method: 'GET' as const, url: `/book/${id}` },
  { right: 'write', method: 'POST' as const, url: '/book', payload: dune },
  { right: 'write', method: 'PUT' as const, url: `/book/${id}`, payload: { year: 1966 } },
  { right: 'write', method: 'DELETE' as const, url: `/book/${id}` },
  { right: 'admin', method: 'GET' as const, url: '/users' },
  { right: 'admin', method: 'POST' as const, url: '/users', payload: { username: `new-${username}`, password: ACCOUNT_PASSWORD, role: 'reader' } },
  { right: 'admin', method: 'PUT' as const, url: `/users/${username}`, payload: { role: 'editor' } },
  { right: 'admin', method: 'DELETE' as const, url: `/users/${username}` }
]

/**
 * What each kind of token may do; `none` is a token without a `role` claim, `unreadable` one whose
 * `role` is not one of the three (docs/contract.md "Hardening").
 */
const rights: Record<string, string[]> = {
  reader: ['read'],
  editor: ['read', 'write'],
  admin: ['read', 'write', 'admin'],
  none: ['read', 'write', 'admin'],
  unreadable: []
}

// Many logins in one suite: the per-client login limit is raised (login.test.ts tests the limit).
describeEachEngine('accounts and roles', ({ app, withFreshApp }) => {
  test('each role against each book and account route: allowed, or 403 Forbidden with nothing changed', async () => {
    for (const role of ['reader', 'editor', 'admin']) await createAccount(app(), `matrix-${role}`, role)
    const tokens: Record<string, string> = { none: signToken({ sub: 'someone' }), unreadable: signToken({ sub: 'someone', role: 'Admin' }) }
    for (const role of ['reader', 'editor', 'admin']) tokens[role] = await login(app(), `matrix-${role}`)
    for (const [kind, token] of Object.entries(tokens)) {
      const book = (await app().inject({ method: 'POST', url: '/book', headers: authHeaders(signToken()), payload: dune })).json().data
      await createAccount(app(), `target-${kind}`, 'reader')
      for (const route of routes(book.id, `target-${kind}`)) {
        const response = await app().inject({ method: route.method, url: route.url, payload: route.payload, headers: authHeaders(token) })
        const label = `${kind} ${route.method} ${route.url}`
        if (rights[kind]!.includes(route.right)) {
          assert.ok(response.statusCode >= 200 && response.statusCode < 300, `${label}: ${response.statusCode} ${response.body}`)
        } else {
          assert.equal(response.statusCode, 403, label)
          assert.deepEqual(response.json(), forbidden, label)
        }
      }
      // Nothing a refused request asked for happened.
      const still = await app().inject({ url: `/users/target-${kind}`, method: 'PUT', payload: {}, headers: authHeaders(signToken()) })
      assert.equal(still.statusCode, rights[kind]!.includes('admin') ? 404 : 200, kind)
    }
  })

  test('403 comes after the 401 checks and before anything else: no 404, no body parsing', async () => {
    await createAccount(app(), 'order-reader', 'reader')
    const reader = await login(app(), 'order-reader')
    for (const [method, url] of [['PUT', '/book/999999'], ['DELETE', '/book/abc'], ['POST', '/book'], ['PUT', '/users/nobody'], ['DELETE', '/users/nobody'], ['POST', '/users']] as const) {
      const response = await app().inject({ method, url, headers: { ...authHeaders(reader), 'content-type': 'application/json' }, payload: '{not json' })
      assert.deepEqual(response.json(), forbidden, `${method} ${url}`)
    }
    for (const url of ['/users', '/users/admin']) {
      assert.deepEqual((await app().inject({ url, method: 'DELETE' })).json().message, url === '/users' ? 'Method not allowed' : 'Authorization token required')
      assert.deepEqual((await app().inject({ url: '/users', headers: { authorization: 'Bearer x.y.z' } })).json(), { status: 401, message: 'Invalid token', data: null })
    }
  })

  test('a username with a NUL character names no account: 404 on PUT and DELETE, 401 for a token naming it', async () => {
    // PostgreSQL text cannot hold NUL: found by the bad-input fuzzer as a 500 on PUT /users/%00.
    for (const method of ['PUT', 'DELETE'] as const) {
      for (const url of ['/users/%00', '/users/admin%00', '/users/%00admin']) {
        const response = await app().inject({ method, url, headers: authHeaders(signToken()), payload: method === 'PUT' ? { role: 'reader' } : undefined })
        assert.deepEqual(response.json(), { status: 404, message: 'User not found', data: null }, `${method} ${url}`)
      }
    }
    const token = signToken({ sub: 'admin\u0000', role: 'admin', book_service_generation: 'g' })
    assert.deepEqual((await app().inject({ url: '/users', headers: authHeaders(token) })).json(), { status: 401, message: 'Invalid token', data: null })
    assert.equal((await app().inject({ url: '/users', headers: authHeaders(signToken()) })).statusCode, 200)
  })

  test('GET, POST, PUT, DELETE /users: exact answers; no password or hash ever in a response', async () => {
    await withFreshApp(async (fresh) => {
      const admin = authHeaders(await adminLogin(fresh))
      const created = await fresh.inject({ method: 'POST', url: '/users', headers: admin, payload: { username: 'Alice', password: ACCOUNT_PASSWORD, role: 'editor' } })
      assert.equal(created.statusCode, 201)
      const { data } = created.json()
      assert.deepEqual(Object.keys(data), ['username', 'role', 'created_at', 'updated_at'])
      assert.deepEqual([data.username, data.role, created.json().message], ['Alice', 'editor', 'User created successfully'])
      assert.match(data.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
      for (const username of ['alice', 'ALICE']) {
        const duplicate = await fresh.inject({ method: 'POST', url: '/users', headers: admin, payload: { username, password: ACCOUNT_PASSWORD, role: 'reader' } })
        assert.deepEqual(duplicate.json(), { status: 409, message: 'User already exists', data: null })
      }
      const list = await fresh.inject({ url: '/users', headers: admin })
      assert.deepEqual(list.json().message, 'Users retrieved successfully')
      assert.deepEqual(list.json().data.map((account: { username: string; role: string }) => [account.username, account.role]), [['admin', 'admin'], ['Alice', 'editor']])
      assert.doesNotMatch(list.body + created.body, /scrypt|password|passphrase/i)

      const updated = await fresh.inject({ method: 'PUT', url: '/users/ALICE', headers: admin, payload: { role: 'reader' } })
      assert.deepEqual([updated.json().message, updated.json().data.role, updated.json().data.username], ['User updated successfully', 'reader', 'Alice'])
      assert.deepEqual((await fresh.inject({ method: 'PUT', url: '/users/bob', headers: admin, payload: { role: 'x' } })).json(), { status: 404, message: 'User not found', data: null })
      const deleted = await fresh.inject({ method: 'DELETE', url: '/users/alice', headers: admin })
      assert.deepEqual(deleted.json(), { status: 200, message: 'User deleted successfully', data: null })
      assert.deepEqual((await fresh.inject({ method: 'DELETE', url: '/users/alice', headers: admin })).json(), { status: 404, message: 'User not found', data: null })
    })
  })

  test('invalid bodies on POST and PUT /users: 400 Invalid input, nothing stored', async () => {
    const admin = authHeaders(signToken())
    await createAccount(app(), 'bodies', 'reader')
    const good = { username: 'valid-name', password: ACCOUNT_PASSWORD, role: 'reader' }
    const bad: unknown[] = [
      '{not json', [], null, 'text', {}, { ...good, username: '' }, { ...good, username: 'x'.repeat(65) }, { ...good, username: ' lead' },
      { ...good, username: 'a/b' }, { ...good, username: 'a\nb' }, { ...good, username: 7 }, { ...good, password: 'short-11chr' },
      { ...good, password: 'p'.repeat(1025) }, { ...good, password: 123456789012 }, { ...good, role: 'root' }, { ...good, role: 'Admin' },
      { username: 'valid-name', password: ACCOUNT_PASSWORD }
    ]
    for (const payload of bad) {
      const body = typeof payload === 'string' ? payload : JSON.stringify(payload)
      const response = await app().inject({ method: 'POST', url: '/users', headers: { ...admin, 'content-type': 'application/json' }, payload: body })
      assert.deepEqual(response.json(), { status: 400, message: 'Invalid input', data: null }, body)
      const change = await app().inject({ method: 'PUT', url: '/users/bodies', headers: { ...admin, 'content-type': 'application/json' }, payload: typeof payload === 'object' && payload !== null && !Array.isArray(payload) ? JSON.stringify({ role: (payload as { role?: unknown }).role ?? 'nope', password: 'short' }) : body })
      assert.equal(change.statusCode, 400, body)
    }
    const names = (await app().inject({ url: '/users', headers: admin })).json().data.map((account: { username: string }) => account.username)
    assert.ok(!names.includes('valid-name'))
    // 12 and 1024 characters are accepted; usernames of 64 characters and non-ASCII too.
    for (const [username, password] of [['x'.repeat(64), 'p'.repeat(12)], ['Борхес', 'p'.repeat(1024)]] as const) {
      const response = await app().inject({ method: 'POST', url: '/users', headers: admin, payload: { username, password, role: 'reader' } })
      assert.equal(response.statusCode, 201, username)
      assert.equal((await app().inject({ method: 'POST', url: '/login', payload: { username: username.toUpperCase(), password } })).statusCode, 200)
    }
  })

  test('look-alike usernames: format, control and other invisible characters are refused with 400 Invalid input, nothing stored', async () => {
    const admin = { ...authHeaders(signToken()), 'content-type': 'application/json' }
    const lookAlikes = [
      'ad\u200bmin', // zero-width space (Cf)
      '\u202enimda', // right-to-left override (Cf)
      'ad\u200dmin', // zero-width joiner (Cf)
      'admin\ufeff', // byte order mark (Cf)
      'ad\u00admin', // soft hyphen (Cf)
      'ad\u2060min', // word joiner (Cf)
      'ad\u0085min', // next line (Cc)
      'ad\u2028min', // line separator (Zl)
      'ad\u3164min', // Hangul filler (default ignorable)
      'ad\ufe0fmin', // variation selector (default ignorable)
      'ad\u{e0061}min' // tag character (Cf, outside the BMP)
    ]
    for (const username of lookAlikes) {
      const response = await app().inject({ method: 'POST', url: '/users', headers: admin, payload: { username, password: ACCOUNT_PASSWORD, role: 'admin' } })
      assert.deepEqual({ status: response.statusCode, body: response.json() }, { status: 400, body: { status: 400, message: 'Invalid input', data: null } }, JSON.stringify(username))
    }
    const names: string[] = (await app().inject({ url: '/users', headers: admin })).json().data.map((account: { username: string }) => account.username)
    assert.deepEqual(names.filter((name) => lookAlikes.includes(name)), [])
    // Letters of any script, inner spaces and emoji stay accepted.
    for (const username of ['Zoë Ång', '日本語', 'dj 😀']) {
      const response = await app().inject({ method: 'POST', url: '/users', headers: admin, payload: { username, password: ACCOUNT_PASSWORD, role: 'reader' } })
      assert.equal(response.statusCode, 201, username)
    }
  })

  test('look-alike usernames from other scripts (the same UTS #39 skeleton as an existing one): 409 User already exists, nothing stored', async () => {
    const admin = { ...authHeaders(signToken()), 'content-type': 'application/json' }
    const exists = { status: 409, message: 'User already exists', data: null }
    const create = (username: string) =>
      app().inject({ method: 'POST', url: '/users', headers: admin, payload: { username, password: ACCOUNT_PASSWORD, role: 'admin' } })
    // `admin` is the first admin of the suite's app.
    const lookAlikes = ['\uff41\uff44\uff4d\uff49\uff4e', '\u0430dmin', 'adm\u0131n', 'adrnin', 'ADM\u0406N', '\u0391DMIN']
    for (const username of lookAlikes) assert.deepEqual((await create(username)).json(), exists, JSON.stringify(username))
    const names: string[] = (await app().inject({ url: '/users', headers: admin })).json().data.map((account: { username: string }) => account.username)
    assert.deepEqual(names.filter((name) => lookAlikes.includes(name)), [])
    // Distinct names stay distinct: different letters, or accents (which are seen).
    for (const username of ['admins', 'Jos\u00e9', 'Jose']) assert.equal((await create(username)).statusCode, 201, username)
  })

  test('look-alike usernames created at once: exactly one is stored', async () => {
    await withFreshApp(async (fresh) => {
      const admin = { ...authHeaders(signToken()), 'content-type': 'application/json' }
      const variants = ['paypal', 'p\u0430ypal', 'payp\u0430l', '\u0440\u0430\u0443\u0440\u0430l', '\uff50\uff41\uff59\uff50\uff41\uff4c', 'PAYPAL', 'p\u0430yp\u0430l', 'pay\u0440al']
      const answers = await Promise.all(variants.map((username) =>
        fresh.inject({ method: 'POST', url: '/users', headers: admin, payload: { username, password: ACCOUNT_PASSWORD, role: 'reader' } })))
      assert.deepEqual(answers.map((answer) => answer.statusCode).sort(), [201, 409, 409, 409, 409, 409, 409, 409])
      const names: string[] = (await fresh.inject({ url: '/users', headers: admin })).json().data.map((account: { username: string }) => account.username)
      assert.equal(names.filter((name) => variants.includes(name)).length, 1)
    })
  })

  test('the last admin cannot be deleted or demoted (409); with a second admin it can', async () => {
    await withFreshApp(async (fresh) => {
      const admin = authHeaders(signToken())
      const lastAdmin = { status: 409, message: 'Cannot remove the last admin', data: null }
      assert.deepEqual((await fresh.inject({ method: 'DELETE', url: '/users/admin', headers: admin })).json(), lastAdmin)
      for (const role of ['editor', 'reader']) {
        assert.deepEqual((await fresh.inject({ method: 'PUT', url: '/users/Admin', headers: admin, payload: { role } })).json(), lastAdmin)
      }
      // A password change of the last admin, or setting admin again, is fine.
      assert.equal((await fresh.inject({ method: 'PUT', url: '/users/admin', headers: admin, payload: { role: 'admin', password: ACCOUNT_PASSWORD } })).statusCode, 200)
      await createAccount(fresh, 'second', 'admin')
      assert.equal((await fresh.inject({ method: 'PUT', url: '/users/admin', headers: admin, payload: { role: 'reader' } })).statusCode, 200)
      assert.deepEqual((await fresh.inject({ method: 'DELETE', url: '/users/second', headers: admin })).json(), lastAdmin)
      // A promotion racing the last admin's demotion: whichever the storage serialises first, the
      // promotion succeeds and there is never no admin (the demotion is 409 when it came first).
      const [promote, demote] = await Promise.all([
        fresh.inject({ method: 'PUT', url: '/users/admin', headers: admin, payload: { role: 'admin' } }),
        fresh.inject({ method: 'PUT', url: '/users/second', headers: admin, payload: { role: 'editor' } })
      ])
      assert.equal(promote!.statusCode, 200)
      assert.ok([200, 409].includes(demote!.statusCode), demote!.body)
      const admins = (await fresh.inject({ url: '/users', headers: admin })).json().data
        .filter((account: { role: string }) => account.role === 'admin')
        .map((account: { username: string }) => account.username)
      assert.deepEqual(admins.sort(), demote!.statusCode === 200 ? ['admin'] : ['admin', 'second'])
    })
  })

  test('revocation: deleting an account, changing its password or its role makes its earlier tokens 401 Invalid token', async () => {
    const admin = authHeaders(signToken())
    const invalid = { status: 401, message: 'Invalid token', data: null }
    for (const change of ['delete', 'password', 'role'] as const) {
      const username = `revoked-${change}`
      await createAccount(app(), username, 'editor')
      const token = await login(app(), username)
      assert.equal((await app().inject({ url: '/books', headers: authHeaders(token) })).statusCode, 200)
      const request =
        change === 'delete'
          ? { method: 'DELETE' as const, url: `/users/${username}` }
          : { method: 'PUT' as const, url: `/users/${username}`, payload: change === 'password' ? { password: 'another passphrase' } : { role: 'admin' } }
      assert.equal((await app().inject({ ...request, headers: admin })).statusCode, 200)
      for (const url of ['/books', '/users']) assert.deepEqual((await app().inject({ url, headers: authHeaders(token) })).json(), invalid, `${change} ${url}`)
      if (change === 'delete') {
        // Re-created under the same name: the old token stays revoked.
        await createAccount(app(), username, 'editor')
        assert.deepEqual((await app().inject({ url: '/books', headers: authHeaders(token) })).json(), invalid)
      } else {
        const password = change === 'password' ? 'another passphrase' : ACCOUNT_PASSWORD
        const fresh = await login(app(), username, password)
        assert.equal((await app().inject({ url: '/users', headers: authHeaders(fresh) })).statusCode, change === 'role' ? 200 : 403)
      }
    }
    // The old password of the changed account no longer logs in.
    const old = await app().inject({ method: 'POST', url: '/login', payload: { username: 'revoked-password', password: ACCOUNT_PASSWORD } })
    assert.deepEqual(old.json(), { status: 401, message: 'Invalid credentials', data: null })
  })

  test('tokens without a role keep full rights, /users included; a role this service does not know has none (403)', async () => {
    for (const payload of [{}, { sub: 'ci' }, { scope: 'x' }]) {
      const headers = authHeaders(signToken(payload))
      assert.equal((await app().inject({ method: 'POST', url: '/book', headers, payload: dune })).statusCode, 201)
      assert.equal((await app().inject({ url: '/users', headers })).statusCode, 200)
    }
    for (const payload of [{ role: 'x' }, { role: 'READER' }, { role: ['reader'] }, { role: null }]) {
      const headers = authHeaders(signToken(payload))
      assert.deepEqual((await app().inject({ url: '/books', headers })).json(), forbidden, JSON.stringify(payload))
      assert.deepEqual((await app().inject({ url: '/users', headers })).json(), forbidden, JSON.stringify(payload))
    }
  })

  test('POST /login: every account, any case of the username; the token carries sub, role and the generation', async () => {
    await createAccount(app(), 'Carol', 'reader')
    const token = await login(app(), 'cAROL')
    const claims = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString())
    assert.deepEqual([claims.sub, claims.role, typeof claims.book_service_generation], ['Carol', 'reader', 'string'])
    for (const payload of [{ username: 'Carol', password: 'wrong password!' }, { username: 'nobody', password: ACCOUNT_PASSWORD }]) {
      assert.deepEqual((await app().inject({ method: 'POST', url: '/login', payload })).json(), { status: 401, message: 'Invalid credentials', data: null })
    }
  })

  test('AUTH_ENABLED=false: the book routes are open, /users still needs an admin token', async () => {
    await withFreshApp(async (fresh) => {
      assert.equal((await fresh.inject({ url: '/books' })).statusCode, 200)
      assert.deepEqual((await fresh.inject({ url: '/users' })).json(), { status: 401, message: 'Authorization token required', data: null })
      await createAccount(fresh, 'open-reader', 'reader')
      assert.deepEqual((await fresh.inject({ url: '/users', headers: authHeaders(await login(fresh, 'open-reader')) })).json(), forbidden)
      assert.equal((await fresh.inject({ url: '/users', headers: authHeaders(await adminLogin(fresh)) })).statusCode, 200)
    }, { AUTH_ENABLED: false })
  })
}, { LOGIN_RATE_LIMIT: 1000 })
