import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { readdirSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import Database from 'better-sqlite3'
import { runCli } from '../../support/cli.js'
import { call } from '../../support/client.js'
import { createPostgresDatabase, postgresSkipReason, type TestDatabase } from '../../support/engines.js'
import { removeDirectory, startServer, temporaryDirectory, type RunningServer } from '../../support/server.js'
import { processSkipReason } from '../../support/scope.js'

/** The books of a SQLite file (a backup), by id. */
function booksIn(path: string): Map<number, string> {
  const db = new Database(path, { readonly: true })
  try {
    assert.equal(db.pragma('integrity_check', { simple: true }), 'ok')
    return new Map((db.prepare('SELECT id, title FROM books').all() as Array<{ id: number; title: string }>).map((b) => [b.id, b.title]))
  } finally {
    db.close()
  }
}

/** Creates a book through the API and returns its id. */
async function create(server: RunningServer, title: string): Promise<number> {
  const { status, body } = await call(`${server.url}/book`, 'POST', { title, author: 'A', year: 2000 })
  assert.equal(status, 201)
  return body.data.id as number
}

describe('book-service backup and restore (SQLite, the real process)', { skip: processSkipReason }, () => {
  let directory: string
  let env: Record<string, string>
  before(() => {
    directory = temporaryDirectory()
    env = { DATABASE_URL: join(directory, 'books.db'), SECRET_TOKEN: 'x' }
  })
  after(() => removeDirectory(directory))

  test('backup under 50 concurrent writers holds every write acknowledged before it started, and passes integrity_check', async () => {
    const server = await startServer({ dataDirectory: directory, env: { LOG_LEVEL: 'warn' } })
    try {
      const acknowledged: Array<{ id: number; title: string; at: number }> = []
      let writing = true
      const writer = async (index: number) => {
        for (let n = 0; writing; n++) {
          const title = `writer ${index} book ${n}`
          const { status, body } = await call(`${server.url}/book`, 'POST', { title, author: 'W', year: 2001 })
          if (status === 201) acknowledged.push({ id: body.data.id as number, title, at: performance.now() })
        }
      }
      const writers = Array.from({ length: 50 }, (_, index) => writer(index))
      while (acknowledged.length < 500) await new Promise((resolve) => setTimeout(resolve, 20))
      const startedAt = performance.now()
      const before = acknowledged.filter((write) => write.at < startedAt)
      const backup = await runCli(['backup', 'snapshot.db'], { cwd: directory, env })
      writing = false
      await Promise.all(writers)
      assert.equal(backup.code, 0, backup.stderr)
      assert.match(backup.stdout, /^book-service: backup of \d+ books written to snapshot\.db \(integrity ok\)\n$/)
      const snapshot = booksIn(join(directory, 'snapshot.db'))
      for (const write of before) assert.equal(snapshot.get(write.id), write.title, `book ${write.id} acknowledged before the backup`)
      assert.equal(statSync(join(directory, 'snapshot.db')).mode & 0o777, 0o600)
      assert.deepEqual(readdirSync(directory).filter((name) => name.includes('.tmp')), [], 'no temporary file left')
    } finally {
      await server.stop()
    }
  })

  test('restore: refused while the service runs; then the round trip, the old file kept, ids and change numbers not handed out again', async () => {
    const folder = temporaryDirectory()
    const restoreEnv = { DATABASE_URL: join(folder, 'books.db'), SECRET_TOKEN: 'x' }
    try {
      let server = await startServer({ dataDirectory: folder, env: { LOG_LEVEL: 'warn' } })
      const kept = [await create(server, 'kept one'), await create(server, 'kept two')]
      assert.equal((await runCli(['backup', join(folder, 'nightly.db')], { cwd: folder, env: restoreEnv })).code, 0)
      const later = await create(server, 'written after the backup')
      await call(`${server.url}/book/${kept[0]}`, 'DELETE')

      const refused = await runCli(['restore', 'nightly.db'], { cwd: folder, env: restoreEnv })
      assert.equal(refused.code, 1)
      assert.match(refused.stderr, /^book-service: restore refused: .*books\.db is in use: a running book-service .* has it open; stop it, then restore\n$/)
      assert.equal((await call(`${server.url}/book/${later}`)).status, 200, 'the running service is unaffected')
      assert.equal((await call(`${server.url}/book/${later + 1}`)).status, 404)
      await server.stop()

      const restored = await runCli(['restore', 'nightly.db'], { cwd: folder, env: restoreEnv })
      assert.equal(restored.code, 0, restored.stderr)
      assert.match(restored.stdout, /restored 2 books from nightly\.db .*; the previous database is kept as .*books\.db\.before-restore-/)
      const previous = readdirSync(folder).find((name) => name.startsWith('books.db.before-restore-'))!
      assert.deepEqual([...booksIn(join(folder, previous)).keys()], [kept[1], later], 'the old database, complete, beside it')

      server = await startServer({ dataDirectory: folder, env: { LOG_LEVEL: 'warn' } })
      try {
        const { body } = await call(`${server.url}/books`)
        assert.deepEqual(body.data.map((book: { title: string }) => book.title), ['kept one', 'kept two'])
        assert.ok((await create(server, 'after the restore')) > later, 'an id handed out before the restore is not handed out again')
        // Three creates and a delete were logged as 1…4 before the restore: the next change is 5.
        const db = new Database(join(folder, 'books.db'), { readonly: true })
        try {
          assert.deepEqual(db.prepare('SELECT seq, operation FROM book_changes ORDER BY seq DESC LIMIT 1').get(), { seq: 5, operation: 'created' })
        } finally {
          db.close()
        }
      } finally {
        await server.stop()
      }
    } finally {
      removeDirectory(folder)
    }
  })

  test('restore refuses a file that is not a sound backup, and changes nothing', async () => {
    writeFileSync(join(directory, 'not-a-backup.db'), 'hello, this is text'.repeat(100))
    const before = booksIn(join(directory, 'books.db'))
    const refused = await runCli(['restore', 'not-a-backup.db'], { cwd: directory, env })
    assert.equal(refused.code, 1)
    assert.match(refused.stderr, /^book-service: restore refused: .*not-a-backup\.db.*\n$/)
    const stranger = join(directory, 'stranger.db')
    new Database(stranger).exec('CREATE TABLE t (x)').close()
    const noHistory = await runCli(['restore', stranger], { cwd: directory, env })
    assert.equal(noHistory.code, 1)
    assert.match(noHistory.stderr, /is not a book-service database \(no migration history\)/)
    assert.deepEqual(booksIn(join(directory, 'books.db')), before)
    assert.deepEqual(readdirSync(directory).filter((name) => name.includes('before-restore')), [])
  })
})

describe('book-service backup on PostgreSQL', { skip: postgresSkipReason }, () => {
  let database: TestDatabase
  let directory: string
  before(async () => {
    database = await createPostgresDatabase()
    directory = temporaryDirectory()
    assert.equal((await runCli(['migrate'], { cwd: directory, env: { DATABASE_URL: database.url } })).code, 0)
  })
  after(async () => {
    removeDirectory(directory)
    await database?.drop()
  })

  test('with pg_dump installed: a custom-format dump, mode 0600', { skip: hasPgDump() ? undefined : 'pg_dump not installed' }, async () => {
    const backup = await runCli(['backup', 'pg.dump'], { cwd: directory, env: { DATABASE_URL: database.url } })
    assert.equal(backup.code, 0, backup.stderr)
    assert.match(backup.stdout, /written to pg\.dump by pg_dump/)
    assert.equal(statSync(join(directory, 'pg.dump')).mode & 0o777, 0o600)
    assert.match(execFileSync('pg_restore', ['--list', join(directory, 'pg.dump')], { encoding: 'utf8' }), /TABLE public books/)
  })

  test('without pg_dump: one line naming pg_dump, exit 2', async () => {
    const env = { DATABASE_URL: database.url, PATH: directory } // a folder without pg_dump
    const backup = await runCli(['backup', 'none.dump'], { cwd: directory, env })
    assert.equal(backup.code, 2)
    assert.match(backup.stderr, /^book-service: on PostgreSQL back up with pg_dump [^\n]*\n$/)
    const restore = await runCli(['restore', 'none.dump'], { cwd: directory, env })
    assert.equal(restore.code, 2)
    assert.match(restore.stderr, /^book-service: on PostgreSQL restore a pg_dump backup with pg_restore [^\n]*\n$/)
  })
})

/** True when pg_dump is on PATH. */
function hasPgDump(): boolean {
  try {
    execFileSync('pg_dump', ['--version'])
    return true
  } catch {
    return false
  }
}
