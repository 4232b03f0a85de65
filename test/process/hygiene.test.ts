import assert from 'node:assert/strict'
import { readFileSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import Database from 'better-sqlite3'
import { TEST_PASSWORD, signToken } from '../support/app.js'
import { removeDirectory, startServer, temporaryDirectory, type RunningServer } from '../support/server.js'

/**
 * Security hygiene (docs/reliability.md): secrets never reach the log, and the files the service creates are
 * private. The real process runs a full flow at LOG_LEVEL=trace; its whole output is searched.
 */

/** Runs login, CRUD, refused tokens and malformed requests; returns every token the service issued. */
async function fullFlow(server: RunningServer, password: string, secret: string): Promise<string[]> {
  const json = { 'content-type': 'application/json' }
  const login = (body: string) => fetch(`${server.url}/login`, { method: 'POST', headers: json, body })
  const tokens: string[] = []
  assert.equal((await login(JSON.stringify({ username: 'admin', password: `${password}x` }))).status, 401)
  assert.equal((await login(JSON.stringify({ username: password, password }))).status, 401)
  assert.equal((await login(`{"username":"admin","password":"${password}"`)).status, 400)
  assert.equal((await login(JSON.stringify({ username: 'admin', password: [password] }))).status, 400)
  for (let i = 0; i < 2; i++) {
    const response = await login(JSON.stringify({ username: 'admin', password }))
    assert.equal(response.status, 200)
    tokens.push(((await response.json()) as { data: { token: string } }).data.token)
  }
  const token = tokens[0]!
  const auth = { ...json, authorization: `Bearer ${token}` }
  const created = await fetch(`${server.url}/book`, { method: 'POST', headers: auth, body: JSON.stringify({ title: 'T', author: 'A', year: 1 }) })
  assert.equal(created.status, 201)
  const id = ((await created.json()) as { data: { id: number } }).data.id
  assert.equal((await fetch(`${server.url}/book/${id}`, { headers: auth })).status, 200)
  assert.equal((await fetch(`${server.url}/book/${id}`, { method: 'PUT', headers: auth, body: '{"year":2}' })).status, 200)
  assert.equal((await fetch(`${server.url}/book/${id}`, { method: 'PUT', headers: auth, body: `{"title":"${token}` })).status, 400)
  assert.equal((await fetch(`${server.url}/books`, { headers: auth })).status, 200)
  // A token in the query string (RFC 6750 allows `access_token` there; some clients send it).
  assert.equal((await fetch(`${server.url}/books?access_token=${token}`, { headers: auth })).status, 200)
  assert.equal((await fetch(`${server.url}/nowhere?token=${token}`)).status, 404)
  assert.equal((await fetch(`${server.url}/book/${id}`, { method: 'DELETE', headers: auth })).status, 200)
  assert.equal((await fetch(`${server.url}/book/${id}`, { headers: auth })).status, 404)
  for (const forged of [`${token}x`, token.slice(0, -3), secret, signToken({ sub: 'admin' }, { key: password }), `Bearer ${secret}`]) {
    assert.equal((await fetch(`${server.url}/books`, { headers: { authorization: forged } })).status, 401)
  }
  assert.equal((await fetch(`${server.url}/book`, { method: 'POST', headers: { authorization: `Bearer ${token}x` }, body: password })).status, 401)
  tokens.push(...(await accountFlow(server, auth)))
  return tokens
}

/** The passwords {@link accountFlow} gives accounts: none may reach the output. */
const ACCOUNT_PASSWORDS = { first: 'first account passphrase', second: 'second account passphrase', refused: 'refused passphrase' }

let accountFlows = 0

/** Creates an account, changes its password, sends refused and malformed bodies; returns the tokens issued. */
async function accountFlow(server: RunningServer, auth: Record<string, string>): Promise<string[]> {
  const users = `${server.url}/users`
  const username = `hygiene-${accountFlows++}`
  const send = (url: string, method: string, body: string) => fetch(url, { method, headers: auth, body })
  assert.equal((await send(users, 'POST', JSON.stringify({ username, password: ACCOUNT_PASSWORDS.first, role: 'editor' }))).status, 201)
  assert.equal((await send(users, 'POST', JSON.stringify({ username: username.toUpperCase(), password: ACCOUNT_PASSWORDS.refused, role: 'editor' }))).status, 409)
  assert.equal((await send(users, 'POST', `{"username":"x","password":"${ACCOUNT_PASSWORDS.refused}"`)).status, 400)
  assert.equal((await send(users, 'POST', JSON.stringify({ username: 'x', password: ACCOUNT_PASSWORDS.refused, role: 'root' }))).status, 400)
  const login = (password: string) =>
    fetch(`${server.url}/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username, password }) })
  const first = ((await (await login(ACCOUNT_PASSWORDS.first)).json()) as { data: { token: string } }).data.token
  assert.equal((await send(`${users}/${username}`, 'PUT', JSON.stringify({ password: ACCOUNT_PASSWORDS.second }))).status, 200)
  assert.equal((await send(`${users}/${username}`, 'PUT', `{"password":"${ACCOUNT_PASSWORDS.refused}`)).status, 400)
  assert.equal((await fetch(`${server.url}/books`, { headers: { authorization: `Bearer ${first}` } })).status, 401)
  assert.equal((await login(ACCOUNT_PASSWORDS.first)).status, 401)
  const second = ((await (await login(ACCOUNT_PASSWORDS.second)).json()) as { data: { token: string } }).data.token
  const list = await (await fetch(users, { headers: auth })).text()
  assert.doesNotMatch(list, /scrypt|passphrase/)
  return [first, second]
}

/** The password hashes stored in the SQLite file at `path`, and the key part of each. */
function storedHashes(path: string): Record<string, string> {
  const db = new Database(path, { readonly: true })
  try {
    const hashes = db.prepare('SELECT username, password_hash FROM accounts').all() as Array<{ username: string; password_hash: string }>
    assert.ok(hashes.length >= 2)
    return Object.fromEntries(hashes.flatMap(({ username, password_hash: hash }) => [[`hash of ${username}`, hash], [`key of ${username}`, hash.split('$').at(-1)!]]))
  } finally {
    db.close()
  }
}

/** Asserts `text` contains none of `secrets` (nor a long piece of any: tokens could be cut in a log line). */
function assertAbsent(text: string, secrets: Record<string, string>) {
  for (const [name, value] of Object.entries(secrets)) {
    assert.ok(!text.includes(value), `the ${name} appears in the output`)
    if (value.length >= 40) {
      const signature = value.split('.').at(-1)!
      assert.ok(!text.includes(signature), `the ${name}'s signature appears in the output`)
    }
  }
}

/** Asserts `path` is not readable, writable or searchable by group or others. */
function assertPrivate(path: string) {
  const mode = statSync(path).mode & 0o777
  assert.equal(mode & 0o077, 0, `${path} has mode ${mode.toString(8)}`)
}

test('generated secret, configured password: no secret, password, password hash or issued token in the output; files private', async () => {
  const directory = temporaryDirectory()
  const data = join(directory, 'data')
  try {
    const server = await startServer({
      dataDirectory: directory,
      env: { SECRET_TOKEN: '', AUTH_PASSWORD: TEST_PASSWORD, LOG_LEVEL: 'trace', DATABASE_URL: join(data, 'books.db') }
    })
    const secret = readFileSync(join(data, 'secret_token'), 'utf8').trim()
    const tokens = await fullFlow(server, TEST_PASSWORD, secret)
    // Files while running (-wal and -shm exist), then after a clean stop.
    for (const name of readdirSync(data)) assertPrivate(join(data, name))
    assert.ok(readdirSync(data).includes('books.db-wal'))
    assert.equal(await server.stop('SIGTERM'), 0)
    assertPrivate(data)
    for (const name of readdirSync(data)) assertPrivate(join(data, name))
    assert.ok(server.stdout().includes('"msg":"request"'), 'the request log was captured')
    assertAbsent(server.output(), {
      secret,
      password: TEST_PASSWORD,
      ...ACCOUNT_PASSWORDS,
      ...storedHashes(join(data, 'books.db')),
      ...Object.fromEntries(tokens.map((token, i) => [`token ${i + 1}`, token]))
    })
    assert.doesNotMatch(server.output(), /scrypt/)
  } finally {
    removeDirectory(directory)
  }
})

test('generated password: printed once on stderr at first start (by design), never in the log lines; files private', async () => {
  const directory = temporaryDirectory()
  const data = join(directory, 'data')
  try {
    // Two full flows on one database log in more often than the default limit allows in a
    // minute, and the limit is counted in the database (docs/accounts.md "Login limits").
    const env = { AUTH_PASSWORD: '', LOG_LEVEL: 'trace', DATABASE_URL: join(data, 'books.db'), LOGIN_RATE_LIMIT: '1000' }
    const first = await startServer({ dataDirectory: directory, env })
    const password = readFileSync(join(data, 'auth_password'), 'utf8').trim()
    assertPrivate(join(data, 'auth_password'))
    const tokens = await fullFlow(first, password, 'test-secret-not-generated-here')
    assert.equal(await first.stop('SIGTERM'), 0)
    assert.equal(first.stderr().split(password).length - 1, 1, 'the generated password is printed exactly once')
    assertAbsent(first.stdout(), { password, ...Object.fromEntries(tokens.map((token, i) => [`token ${i + 1}`, token])) })

    const second = await startServer({ dataDirectory: directory, env })
    const moreTokens = await fullFlow(second, password, 'test-secret-not-generated-here')
    assert.equal(await second.stop('SIGTERM'), 0)
    assertAbsent(second.output(), { password, ...ACCOUNT_PASSWORDS, ...storedHashes(join(data, 'books.db')), ...Object.fromEntries(moreTokens.map((token, i) => [`token ${i + 1}`, token])) })
    for (const name of readdirSync(data)) assertPrivate(join(data, name))
  } finally {
    removeDirectory(directory)
  }
})
