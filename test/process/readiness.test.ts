import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { appendFileSync, existsSync, rmSync, statSync, truncateSync } from 'node:fs'
import { join } from 'node:path'
import { after, describe, test } from 'node:test'
import pg from 'pg'
import { authHeaders } from '../support/app.js'
import { createPostgresDatabase, postgresSkipReason } from '../support/engines.js'
import { removeDirectory, startServer, temporaryDirectory, type RunningServer } from '../support/server.js'

/**
 * Readiness follows whether writes work (docs/operations.md "Readiness"), on the real process with SQLite:
 * a database file or log removed under the service is noticed (writes 503, `/readyz` 503, one log
 * line, what was committed kept, no id handed out twice after a restart); a full disk makes writes
 * and `/readyz` 503 until a write can be made again; so does a PostgreSQL database made read-only.
 */
const auth = { ...authHeaders(), 'content-type': 'application/json' }
const unavailable = { status: 503, message: 'Service unavailable', data: null }

async function post(server: RunningServer, title: string) {
  const response = await fetch(`${server.url}/book`, { method: 'POST', headers: auth, body: JSON.stringify({ title, author: 'A', year: 1 }) })
  return { status: response.status, body: (await response.json()) as { data: { id: number } | null } }
}
const ready = async (server: RunningServer) => (await fetch(`${server.url}/readyz`)).status
const titles = async (server: RunningServer) =>
  ((await (await fetch(`${server.url}/books`, { headers: auth })).json()) as { data: Array<{ id: number; title: string }> }).data

/** Polls `check` every 50 ms until it is true or `ms` passed; resolves with its last value. */
async function eventually(check: () => Promise<boolean>, ms = 5000): Promise<boolean> {
  const deadline = Date.now() + ms
  for (;;) {
    if (await check()) return true
    if (Date.now() > deadline) return false
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

describe('a database file removed while the service runs (real process) [sqlite]', () => {
  const directories: string[] = []
  after(() => directories.forEach(removeDirectory))

  for (const removed of ['books.db', 'books.db-wal'] as const) {
    test(`rm ${removed}: writes and /readyz 503, one log line; after SIGKILL and a restart every acknowledged book is there and ids go on`, async () => {
      const directory = temporaryDirectory()
      directories.push(directory)
      const server = await startServer({ dataDirectory: directory })
      after(() => server.process.exitCode === null && server.process.signalCode === null && server.stop('SIGKILL'))
      const acknowledged = []
      for (const title of ['one', 'two', 'three']) {
        const created = await post(server, title)
        assert.equal(created.status, 201)
        acknowledged.push(created.body.data)
      }
      assert.equal(await ready(server), 200)
      rmSync(join(directory, removed))

      assert.deepEqual(await post(server, 'after the removal'), { status: 503, body: unavailable })
      assert.equal(await ready(server), 503)
      assert.deepEqual(await post(server, 'again'), { status: 503, body: unavailable })
      assert.deepEqual((await titles(server)).map((book) => book.title), ['one', 'two', 'three'], 'reads go on')
      const lines = () => server.stdout().split('\n').filter((line) => line.includes(`${removed} was removed while in use`) && line.includes('"level":50'))
      assert.ok(await eventually(async () => lines().length > 0), server.stdout()) // the log is written asynchronously
      await new Promise((resolve) => setTimeout(resolve, 200))
      assert.equal(lines().length, 1, server.stdout())
      assert.ok(existsSync(join(directory, 'books.db')))
      // The service still writes on its own after the removal (a login counter here; the webhook
      // dispatcher's lease every few seconds), into the removed database's log. SQLite would replay
      // that log into the saved file at the next start and corrupt it, so none may be at its path.
      const login = await fetch(`${server.url}/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'nobody', password: 'wrong' }) })
      assert.equal(login.status, 401)
      if (removed === 'books.db') assert.equal(statSync(join(directory, 'books.db-wal'), { throwIfNoEntry: false })?.size ?? 0, 0, 'no log of the removed database beside the saved file')
      assert.equal(await server.stop('SIGKILL'), 'SIGKILL')

      const restarted = await startServer({ dataDirectory: directory })
      try {
        assert.deepEqual(await titles(restarted), acknowledged)
        assert.equal(await ready(restarted), 200)
        const next = await post(restarted, 'four')
        assert.equal(next.status, 201, restarted.stdout())
        assert.equal(next.body.data!.id, 4, 'no id is handed out twice')
      } finally {
        assert.equal(await restarted.stop(), 0)
      }
    })
  }

  test('rm books.db, a second process started on the saved file, then the first one stopped: what the second one committed is kept', async () => {
    const directory = temporaryDirectory()
    directories.push(directory)
    const first = await startServer({ dataDirectory: directory })
    after(() => first.process.exitCode === null && first.process.signalCode === null && first.stop('SIGKILL'))
    assert.equal((await post(first, 'one')).status, 201)
    rmSync(join(directory, 'books.db'))
    assert.equal((await post(first, 'refused')).status, 503) // the committed data is saved at books.db
    const second = await startServer({ dataDirectory: directory })
    after(() => second.process.exitCode === null && second.process.signalCode === null && second.stop('SIGKILL'))
    assert.equal((await post(second, 'two')).status, 201)
    // The first one's exit (its connections close on the removed database's files) leaves the
    // second one's log at its path.
    assert.equal(await first.stop(), 0)
    assert.equal(await second.stop('SIGKILL'), 'SIGKILL')
    const third = await startServer({ dataDirectory: directory })
    try {
      assert.deepEqual((await titles(third)).map((book) => book.title), ['one', 'two'])
    } finally {
      assert.equal(await third.stop(), 0)
    }
  })

  test('rm books.db-wal with no write after it: /readyz alone notices it and the data is kept', async () => {
    const directory = temporaryDirectory()
    directories.push(directory)
    const server = await startServer({ dataDirectory: directory })
    after(() => server.process.exitCode === null && server.process.signalCode === null && server.stop('SIGKILL'))
    assert.equal((await post(server, 'kept')).status, 201)
    rmSync(join(directory, 'books.db-wal'))
    assert.equal(await ready(server), 503)
    assert.equal(await server.stop('SIGKILL'), 'SIGKILL')
    const restarted = await startServer({ dataDirectory: directory })
    try {
      assert.deepEqual((await titles(restarted)).map((book) => book.title), ['kept'])
    } finally {
      assert.equal(await restarted.stop(), 0)
    }
  })
})

describe('a database file emptied while the service runs (real process) [sqlite]', () => {
  test('truncate -s 0 books.db: reads, writes and /readyz answer 503 (not 500), one log line', async () => {
    const directory = temporaryDirectory()
    after(() => removeDirectory(directory))
    const first = await startServer({ dataDirectory: directory })
    assert.equal((await post(first, 'one')).status, 201)
    assert.equal(await first.stop(), 0)
    const server = await startServer({ dataDirectory: directory })
    after(() => server.process.exitCode === null && server.process.signalCode === null && server.stop('SIGKILL'))
    assert.equal((await fetch(`${server.url}/book/1`, { headers: auth })).status, 200)
    assert.equal(await ready(server), 200)

    truncateSync(join(directory, 'books.db'), 0)
    // Noticed by the next read that reaches the file, or by the check of the file every second.
    assert.ok(await eventually(async () => (await fetch(`${server.url}/book/1`, { headers: auth })).status === 503), 'GET /book/1 answers 503 within the check')
    for (const path of ['/book/1', '/books', '/books?author=A']) {
      const response = await fetch(`${server.url}${path}`, { headers: auth })
      assert.deepEqual({ status: response.status, body: await response.json() }, { status: 503, body: unavailable }, path)
    }
    assert.deepEqual(await post(server, 'after the truncation'), { status: 503, body: unavailable })
    assert.equal(await ready(server), 503)
    const login = await fetch(`${server.url}/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'admin', password: 'wrong password' })
    })
    assert.equal(login.status, 503)
    const lines = () => server.stdout().split('\n').filter((line) => line.includes('is damaged') && line.includes('"level":50'))
    assert.ok(await eventually(async () => lines().length > 0), server.stdout())
    await new Promise((resolve) => setTimeout(resolve, 200))
    assert.equal(lines().length, 1, server.stdout())
    assert.equal(await ready(server), 503, 'still not ready')
  })
})

/** Mounts a tmpfs of `size` at a new folder; undefined when this machine does not allow it (not root). */
function mountTmpfs(size: string): string | undefined {
  const directory = temporaryDirectory()
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size},mode=0700`, 'tmpfs', directory], { stdio: 'pipe' })
    return directory
  } catch {
    removeDirectory(directory)
    return undefined
  }
}

const probeMount = mountTmpfs('1m')
if (probeMount) {
  execFileSync('umount', [probeMount])
  removeDirectory(probeMount)
}

describe('a full disk (real process) [sqlite]', () => {
  test(
    'writes answer 503 and /readyz 503 while the disk is full; both work again once there is room; no acknowledged write lost',
    { skip: probeMount ? undefined : 'mounting a tmpfs needs root: the full-disk test is skipped' },
    async () => {
      // A 4 MiB tmpfs filled to the last byte: as root, permissions do not stop writes, a full disk does.
      const directory = mountTmpfs('4m')!
      let server: RunningServer | undefined
      try {
        server = await startServer({ dataDirectory: directory })
        const stored: string[] = []
        for (let n = 0; n < 3; n++) {
          assert.equal((await post(server, `before ${n}`)).status, 201)
          stored.push(`before ${n}`)
        }
        const filler = join(directory, 'filler')
        try {
          for (;;) appendFileSync(filler, Buffer.alloc(64 * 1024))
        } catch (error) {
          assert.equal((error as NodeJS.ErrnoException).code, 'ENOSPC')
        }
        try {
          for (;;) appendFileSync(filler, Buffer.alloc(512))
        } catch {
          // full to the last block
        }
        let refused: Awaited<ReturnType<typeof post>> | undefined
        for (let n = 0; n < 2000 && !refused; n++) {
          const title = `full ${n} ${'x'.repeat(480)}`
          const answer = await post(server, title)
          if (answer.status === 201) stored.push(title)
          else refused = answer
        }
        assert.deepEqual(refused, { status: 503, body: unavailable })
        assert.equal(await ready(server), 503)
        assert.equal(await ready(server), 503)
        assert.ok(await eventually(async () => /writes failing, not ready/.test(server!.stdout())), server.stdout())

        rmSync(filler)
        assert.ok(await eventually(async () => (await ready(server!)) === 200), 'ready again once there is room')
        assert.ok(await eventually(async () => /writes work again: ready/.test(server!.stdout())), server.stdout())
        assert.equal((await post(server, 'after')).status, 201)
        stored.push('after')
        assert.deepEqual((await titles(server)).map((book) => book.title), stored)
      } finally {
        if (server) assert.equal(await server.stop(), 0)
        execFileSync('umount', [directory])
        removeDirectory(directory)
      }
    }
  )
})

describe('a PostgreSQL database that answers but refuses writes (real process) [postgres]', () => {
  test('made read-only: writes 503 and /readyz 503 (reads go on); writable again: ready and writing', { skip: postgresSkipReason }, async () => {
    const database = await createPostgresDatabase()
    const directory = temporaryDirectory()
    const admin = new pg.Client({ connectionString: database.url })
    let server: RunningServer | undefined
    /** Sets the database's read-only default and ends its sessions, so the service's next connections get it. */
    const readOnly = async (on: boolean) => {
      const name = new URL(database.url).pathname.slice(1)
      await admin.query(`ALTER DATABASE "${name}" SET default_transaction_read_only = ${on ? 'on' : 'off'}`)
      await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [name])
    }
    try {
      await admin.connect()
      server = await startServer({ dataDirectory: directory, env: { DATABASE_URL: database.url } })
      assert.equal((await post(server, 'before')).status, 201)
      await readOnly(true)
      const running = server
      // The first request after the sessions ended may meet a dropped connection (503 as well).
      assert.ok(await eventually(async () => (await post(running, 'refused')).status === 503 && (await ready(running)) === 503))
      assert.deepEqual(await post(server, 'refused'), { status: 503, body: unavailable })
      assert.equal(await ready(server), 503)
      assert.deepEqual((await titles(server)).map((book) => book.title), ['before'], 'reads go on')
      assert.ok(await eventually(async () => /writes failing, not ready/.test(running.stdout())), running.stdout())

      await readOnly(false)
      assert.ok(await eventually(async () => (await ready(running)) === 200), 'ready again once writes are stored')
      assert.equal((await post(server, 'after')).status, 201)
      assert.deepEqual((await titles(server)).map((book) => book.title), ['before', 'after'])
    } finally {
      if (server) assert.equal(await server.stop(), 0)
      await admin.end()
      await database.drop()
      removeDirectory(directory)
    }
  })
})
