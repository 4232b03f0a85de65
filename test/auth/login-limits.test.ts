import assert from 'node:assert/strict'
import { request } from 'node:http'
import { after, before, describe, test } from 'node:test'
import { LOGIN_WINDOW_MS, LoginLimits } from '../../src/auth/login-limits.js'
import type { Database } from '../../src/storage/contracts/database.js'
import { TEST_PASSWORD, buildTestApp } from '../support/app.js'
import { eventually } from '../support/client.js'
import { createPostgresDatabase, engines, openTestDatabase, postgresSkipReason, type TestDatabase } from '../support/engines.js'
import { removeDirectory, startServer, temporaryDirectory, type RunningServer } from '../support/server.js'
import { processSkipReason } from '../support/scope.js'

/** POST /login on a connection of its own (so node:cluster hands each to whichever worker accepts). */
function login(
  url: string,
  password: string,
  headers: Record<string, string> = {},
  username = 'admin'
): Promise<{ status: number; body: string; retryAfter: string | undefined }> {
  return new Promise((resolve, reject) => {
    const body = JSON.stringify({ username, password })
    const req = request(
      `${url}/login`,
      { method: 'POST', agent: false, headers: { 'content-type': 'application/json', connection: 'close', ...headers } },
      (response) => {
        let text = ''
        response.setEncoding('utf8')
        response.on('data', (chunk: string) => (text += chunk))
        response.on('end', () => resolve({ status: response.statusCode!, body: text, retryAfter: response.headers['retry-after'] as string | undefined }))
      }
    )
    req.setTimeout(10_000, () => req.destroy(new Error('POST /login: no answer within 10 s')))
    req.on('error', reject)
    req.end(body)
  })
}

/** The pids that logged a request line for `path` (pino writes the pid on every line). */
function servingPids(server: RunningServer, path: string): Set<number> {
  const lines = server.stdout().split('\n').filter((line) => line.includes('"msg":"request"') && line.includes(`"path":"${path}"`))
  return new Set(lines.map((line) => (JSON.parse(line) as { pid: number }).pid))
}

for (const { engine, skip } of engines) {
  describe(`LoginLimits counted in the database [${engine}]`, { skip }, () => {
    let database: Database
    let cleanup = async () => {}
    before(async () => {
      const opened = await openTestDatabase(engine)
      database = opened.database
      cleanup = opened.cleanup
    })
    after(async () => {
      await database?.close()
      await cleanup()
    })

    test('two processes counting one address share one count; a new minute starts from nothing', async () => {
      let now = 1_000_000
      const settings = { attemptsPerAddress: 3, failuresPerAccount: 3 }
      const first = new LoginLimits(database.loginAttempts, settings, () => now)
      const second = new LoginLimits(database.loginAttempts, settings, () => now)
      const counts = []
      for (let i = 0; i < 6; i++) counts.push((await (i % 2 ? second : first).countAttempt('198.51.100.1')).attempts)
      // Up to one past the limit each attempt is counted once whichever process takes it; past
      // it each process answers from what it knows, never under the limit again.
      assert.deepEqual(counts.slice(0, 4), [1, 2, 3, 4])
      assert.ok(counts.slice(4).every((count) => count > settings.attemptsPerAddress), String(counts))
      assert.equal((await first.countAttempt('198.51.100.2')).attempts, 1)
      now += LOGIN_WINDOW_MS
      assert.equal((await second.countAttempt('198.51.100.1')).attempts, 1)
    })

    test('an account guarded by its failures refuses the addresses that failed on it, not the others, until its minute ends', async () => {
      let now = 5_000_000
      const limits = new LoginLimits(database.loginAttempts, { attemptsPerAddress: 100, failuresPerAccount: 3 }, () => now)
      /** A wrong password checked: reserved, then settled as failed. */
      const fail = async (account: string, address: string) => {
        const check = await limits.reserveCheck(account, address)
        assert.ok('settle' in check, 'checked')
        await check.settle(true)
      }
      /** Seconds to wait when refused; a check let through is settled as a right password (nothing counted). */
      const refuses = async (account: string, address: string) => {
        const check = await limits.reserveCheck(account, address)
        if ('retryAfterSeconds' in check) return check.retryAfterSeconds
        await check.settle(false)
        return undefined
      }
      for (const address of ['192.0.2.1', '192.0.2.2']) await fail('carol', address)
      assert.equal(await refuses('carol', '192.0.2.1'), undefined, 'under the limit')
      await fail('carol', '192.0.2.3')
      assert.equal(await refuses('carol', '192.0.2.1'), 60)
      assert.equal(await refuses('carol', '192.0.2.3'), 60)
      assert.equal(await refuses('carol', '192.0.2.9'), undefined, 'an address without a failure is heard')
      assert.equal(await refuses('carol', '192.0.2.9'), undefined, 'and a right password there counts nothing')
      assert.equal(await refuses('dave', '192.0.2.1'), undefined, 'another account is not guarded')
      now += 20_000
      assert.equal(await refuses('carol', '192.0.2.1'), 40)
      now += 40_000
      assert.equal(await refuses('carol', '192.0.2.1'), undefined, 'the minute is over')
    })

    test('a check in progress counts as a failure until it is settled', async () => {
      const limits = new LoginLimits(database.loginAttempts, { attemptsPerAddress: 100, failuresPerAccount: 2 }, () => 9_000_000)
      const first = await limits.reserveCheck('erin', '192.0.2.1')
      const second = await limits.reserveCheck('erin', '192.0.2.2')
      assert.ok('settle' in first && 'settle' in second)
      assert.ok('retryAfterSeconds' in (await limits.reserveCheck('erin', '192.0.2.1')), 'the address with a check in progress waits')
      assert.ok('settle' in (await limits.reserveCheck('erin', '192.0.2.3')), 'a new address is heard once')
      await first.settle(false)
      await second.settle(false)
    })

    test('POST /login: guarded account answers 429 Too many requests with Retry-After to an address that failed, 200 to a fresh one', async () => {
      const own = await openTestDatabase(engine)
      const app = await buildTestApp({ LOGIN_RATE_LIMIT: 100, LOGIN_ACCOUNT_FAILURE_LIMIT: 3 }, own.database)
      const attempt = (remoteAddress: string, password: string) =>
        app.inject({ method: 'POST', url: '/login', remoteAddress, payload: { username: 'Admin', password } })
      try {
        for (const address of ['10.1.0.1', '10.1.0.2', '10.1.0.3']) assert.equal((await attempt(address, 'wrong')).statusCode, 401)
        const refused = await attempt('10.1.0.1', TEST_PASSWORD)
        assert.equal(refused.statusCode, 429)
        assert.deepEqual(refused.json(), { status: 429, message: 'Too many requests', data: null })
        assert.ok(Number(refused.headers['retry-after']) > 0 && Number(refused.headers['retry-after']) <= 60)
        assert.equal((await attempt('10.1.0.9', TEST_PASSWORD)).statusCode, 200, 'the owner from an address without failures')
        assert.equal((await attempt('10.1.0.8', 'wrong')).statusCode, 401, 'one guess from a fresh address')
        assert.equal((await attempt('10.1.0.8', 'wrong')).statusCode, 429, 'and no second one')
      } finally {
        await app.close()
        await own.cleanup()
      }
    })
  })
}

describe('the login limits on the real process', { skip: processSkipReason }, () => {
  test('WORKERS=2: LOGIN_RATE_LIMIT attempts from one address for the whole service, not per worker', async () => {
    const directory = temporaryDirectory()
    const server = await startServer({ dataDirectory: directory, env: { WORKERS: '2', LOGIN_RATE_LIMIT: '4' }, timeoutMs: 30_000 })
    try {
      const statuses = []
      for (let i = 0; i < 10; i++) statuses.push((await login(server.url, i === 3 ? TEST_PASSWORD : 'wrong')).status)
      assert.deepEqual(statuses, [401, 401, 401, 200, 429, 429, 429, 429, 429, 429])
      // The log is written asynchronously (up to 200 ms later): wait for both workers' request lines.
      await eventually('both workers answered logins (their request lines in the log)', async () => servingPids(server, '/login').size === 2)
    } finally {
      await server.stop()
      removeDirectory(directory)
    }
  })

  test('WORKERS=2 behind a trusted proxy: an account guarded across addresses and workers still lets its owner in', async () => {
    const directory = temporaryDirectory()
    const server = await startServer({
      dataDirectory: directory,
      env: { WORKERS: '2', TRUST_PROXY: 'true', LOGIN_RATE_LIMIT: '100', LOGIN_ACCOUNT_FAILURE_LIMIT: '5' },
      timeoutMs: 30_000
    })
    const from = (address: string) => ({ 'x-forwarded-for': address })
    try {
      for (let i = 1; i <= 5; i++) assert.equal((await login(server.url, 'wrong', from(`203.0.113.${i}`))).status, 401)
      const refused = await login(server.url, TEST_PASSWORD, from('203.0.113.1'))
      assert.equal(refused.status, 429)
      assert.equal(JSON.parse(refused.body).message, 'Too many requests')
      assert.ok(Number(refused.retryAfter) > 0)
      assert.equal((await login(server.url, TEST_PASSWORD, from('203.0.113.50'))).status, 200)
      await eventually('both workers answered logins (their request lines in the log)', async () => servingPids(server, '/login').size === 2)
    } finally {
      await server.stop()
      removeDirectory(directory)
    }
  })

  test('two instances on one PostgreSQL database: LOGIN_RATE_LIMIT for both together', { skip: postgresSkipReason }, async () => {
    let database: TestDatabase | undefined
    const servers: RunningServer[] = []
    const directories = [temporaryDirectory(), temporaryDirectory()]
    try {
      database = await createPostgresDatabase()
      for (const directory of directories) {
        servers.push(await startServer({ dataDirectory: directory, env: { DATABASE_URL: database.url, LOGIN_RATE_LIMIT: '4' } }))
      }
      const statuses = []
      for (let i = 0; i < 8; i++) statuses.push((await login(servers[i % 2]!.url, 'wrong')).status)
      assert.deepEqual(statuses, [401, 401, 401, 401, 429, 429, 429, 429])
    } finally {
      for (const server of servers) await server.stop()
      for (const directory of directories) removeDirectory(directory)
      await database?.drop()
    }
  })
})

test('while the database cannot count, each process still limits an address by its own count', async () => {
  const failing = {
    add: () => Promise.reject(new Error('unreachable')),
    counts: () => Promise.reject(new Error('unreachable')),
    release: () => Promise.reject(new Error('unreachable')),
    forgetBefore: () => Promise.reject(new Error('unreachable'))
  }
  let now = 0
  const limits = new LoginLimits(failing, { attemptsPerAddress: 2, failuresPerAccount: 2 }, () => now)
  const counts = []
  for (let i = 0; i < 4; i++) counts.push((await limits.countAttempt('192.0.2.7')).attempts)
  assert.deepEqual(counts, [1, 2, 3, 4])
  now += LOGIN_WINDOW_MS
  assert.equal((await limits.countAttempt('192.0.2.7')).attempts, 1)
})
