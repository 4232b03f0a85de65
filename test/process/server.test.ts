import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { TEST_PASSWORD } from '../support/app.js'
import { eventually } from '../support/client.js'
import { removeDirectory, SERVER_ENTRY, startServer, temporaryDirectory } from '../support/server.js'

/** Every path under `directory` (files and folders), relative to it. */
function everythingUnder(directory: string): string[] {
  return readdirSync(directory, { recursive: true, encoding: 'utf8' }).sort()
}

/** The envelope as the tests read it; `data` is whatever the route returns. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Envelope = { status: number; message: string; data: any }

async function call(url: string, method: string, token?: string, body?: unknown) {
  const response = await fetch(url, {
    method,
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body)
  })
  return { status: response.status, body: (await response.json()) as Envelope }
}

async function login(url: string, password: string): Promise<string> {
  const response = await call(`${url}/login`, 'POST', undefined, { username: 'admin', password })
  assert.equal(response.status, 200, JSON.stringify(response.body))
  return response.body.data.token
}

describe('the real server process', () => {
  let directory: string
  before(() => {
    directory = temporaryDirectory()
  })
  after(() => removeDirectory(directory))

  test('login, create, list, get, partial update, delete, 404; SIGTERM exits 0; records survive a restart', async () => {
    const server = await startServer({ dataDirectory: directory })
    const token = await login(server.url, TEST_PASSWORD)
    const books = [
      { title: 'Dune', author: 'Frank Herbert', year: 1965 },
      { title: 'Beloved', author: 'Toni Morrison', year: 1987 },
      { title: 'Ficciones', author: 'Jorge Luis Borges', year: 1944 }
    ]
    const ids: number[] = []
    for (const book of books) {
      const created = await call(`${server.url}/book`, 'POST', token, book)
      assert.equal(created.status, 201)
      assert.deepEqual(created.body, { status: 201, message: 'Book created successfully', data: { id: created.body.data.id, ...book } })
      ids.push(created.body.data.id)
    }
    const list = await call(`${server.url}/books`, 'GET', token)
    assert.deepEqual(list.body.data, books.map((book, i) => ({ id: ids[i], ...book })))
    const got = await call(`${server.url}/book/${ids[1]}`, 'GET', token)
    assert.deepEqual(got.body, { status: 200, message: 'Book retrieved successfully', data: { id: ids[1], ...books[1] } })
    const updated = await call(`${server.url}/book/${ids[0]}`, 'PUT', token, { year: 1966 })
    assert.deepEqual(updated.body.data, { id: ids[0], ...books[0], year: 1966 })
    assert.deepEqual((await call(`${server.url}/book/${ids[2]}`, 'DELETE', token)).body, {
      status: 200, message: 'Book deleted successfully', data: null
    })
    assert.equal((await call(`${server.url}/book/${ids[2]}`, 'GET', token)).status, 404)
    assert.equal(await server.stop('SIGTERM'), 0)
    assert.match(server.output(), /"msg":"stopping: finishing in-flight requests"/)

    const again = await startServer({ dataDirectory: directory })
    try {
      const survivors = await call(`${again.url}/books`, 'GET', token)
      assert.deepEqual(survivors.body.data, [
        { id: ids[0], ...books[0], year: 1966 },
        { id: ids[1], ...books[1] }
      ])
      const next = await call(`${again.url}/book`, 'POST', token, books[2])
      assert.ok(next.body.data.id > ids[2]!, 'ids are never reused, even across restarts')
    } finally {
      assert.equal(await again.stop('SIGINT'), 0)
    }
  })

  test('with no configuration: generates the secret and password once (mode 0600), prints the password once, keeps both', async () => {
    const empty = temporaryDirectory()
    try {
      const unset = { SECRET_TOKEN: '', AUTH_PASSWORD: '', DATABASE_URL: '' }
      const first = await startServer({ dataDirectory: empty, env: unset })
      const printed = /generated the login password for "admin": (\S+)/.exec(first.output())
      assert.ok(printed, first.output())
      const password = printed[1]!
      const dataFolder = join(empty, 'data')
      assert.equal(statSync(dataFolder).mode & 0o777, 0o700)
      for (const file of ['secret_token', 'auth_password', 'books.db']) {
        assert.equal(statSync(join(dataFolder, file)).mode & 0o777, 0o600, file)
      }
      assert.equal(readFileSync(join(dataFolder, 'auth_password'), 'utf8').trim(), password)
      // The start log says where the first admin's password came from: the file, not AUTH_PASSWORD.
      // The log is written asynchronously (up to 200 ms after the line): wait for it.
      await eventually('the start log line', async () => /created the first admin account \\"admin\\", its password from data\/auth_password/.test(first.stdout()))
      assert.doesNotMatch(first.output().split('\n').filter((line) => line.startsWith('{')).join('\n'), new RegExp(password))
      const token = await login(first.url, password)
      assert.equal(await first.stop(), 0)

      const second = await startServer({ dataDirectory: empty, env: unset })
      try {
        assert.doesNotMatch(second.output(), /generated the login password/)
        assert.equal((await call(`${second.url}/books`, 'GET', token)).status, 200, 'the kept secret still verifies old tokens')
        await login(second.url, password)
      } finally {
        await second.stop()
      }
    } finally {
      removeDirectory(empty)
    }
  })

  // The start-up's steps refuse before anything is written (docs/architecture.md "Paths through the code").
  for (const workers of ['1', '2']) {
    test(`WORKERS=${workers}, DATABASE_URL naming a folder: one line, exit 1, nothing written anywhere`, () => {
      const directory = temporaryDirectory()
      try {
        const folder = join(directory, 'store')
        mkdirSync(folder)
        const result = spawnSync(process.execPath, [SERVER_ENTRY], {
          cwd: directory,
          env: { PATH: process.env.PATH, HOST: '127.0.0.1', PORT: '0', WORKERS: workers, DATABASE_URL: folder },
          encoding: 'utf8'
        })
        assert.equal(result.stderr, `book-service: DATABASE_URL is a folder; name a file in it, e.g. ${join(folder, 'books.db')}\n`)
        assert.equal(result.status, 1)
        assert.equal(result.stdout, '')
        assert.deepEqual(everythingUnder(directory), ['store'], 'no auth_password, secret_token or database written')
      } finally {
        removeDirectory(directory)
      }
    })
  }

  test('half a second after it listens, the process gives back the memory of its start-up (RSS lower after than before) and serves on', async () => {
    const server = await startServer({ dataDirectory: directory, env: { LOG_LEVEL: 'debug' } })
    try {
      const released = () => server.stdout().split('\n').find((line) => line.includes('"msg":"start-up memory released"'))
      await eventually('the start-up memory line', async () => released() !== undefined)
      const line = JSON.parse(released()!) as { rssBefore: number; rssAfter: number; milliseconds: number }
      assert.ok(line.rssAfter < line.rssBefore, `RSS ${line.rssBefore} bytes before, ${line.rssAfter} after`)
      assert.equal(typeof line.milliseconds, 'number')
      assert.equal((await fetch(`${server.url}/healthz`)).status, 200)
    } finally {
      assert.equal(await server.stop('SIGTERM'), 0)
    }
  })

  test('AUTH_PASSWORD shorter than the password rule: one line without the value, exit 1, nothing written', () => {
    const directory = temporaryDirectory()
    try {
      const result = spawnSync(process.execPath, [SERVER_ENTRY], {
        cwd: directory,
        env: { PATH: process.env.PATH, HOST: '127.0.0.1', PORT: '0', AUTH_PASSWORD: 'abc' },
        encoding: 'utf8'
      })
      assert.equal(result.stderr, 'book-service: Invalid configuration: AUTH_PASSWORD must be 12 to 1024 characters, as every password\n')
      assert.equal(result.status, 1)
      assert.deepEqual(everythingUnder(directory), [])
    } finally {
      removeDirectory(directory)
    }
  })
})
