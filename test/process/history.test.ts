import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { BookServiceError, createClient, type BookClient, type HistoryEntry } from '../../src/client/index.js'
import { TEST_SECRET, signToken } from '../support/app.js'
import { runCli } from '../support/cli.js'
import { createPostgresDatabase, engines, type TestDatabase } from '../support/engines.js'
import { removeDirectory, startServer, temporaryDirectory, type RunningServer } from '../support/server.js'

const tokens = {
  alice: signToken({ sub: 'alice', role: 'editor' }),
  bob: signToken({ sub: 'bob', role: 'editor' }),
  reader: signToken({ sub: 'carol', role: 'reader' })
}

/** The error `promise` rejects with, as status and message. */
async function failure(promise: Promise<unknown>): Promise<[number, string]> {
  try {
    await promise
  } catch (error) {
    assert.ok(error instanceof BookServiceError, String(error))
    return [error.status, error.message]
  }
  assert.fail('expected the call to fail')
}

/** Every entry of the history of `id`, page by page (`limit`). */
async function wholeHistory(client: BookClient, id: number, limit?: number): Promise<HistoryEntry[]> {
  const entries: HistoryEntry[] = []
  for (let cursor: string | undefined; ; ) {
    const page = await client.history(id, { limit, cursor })
    entries.push(...page.entries)
    if (page.cursor === undefined) return entries
    cursor = page.cursor
  }
}

const summary = (entries: HistoryEntry[]) => entries.map((entry) => `${entry.version} ${entry.operation} ${entry.actor}`)

for (const { engine, skip } of engines) {
  describe(`history and restore on the real process [${engine}]`, { skip }, () => {
    let directory: string
    let database: TestDatabase | undefined
    let env: Record<string, string>
    let server: RunningServer
    const as = (who: keyof typeof tokens) => createClient({ baseUrl: server.url, token: tokens[who] })

    before(async () => {
      directory = temporaryDirectory()
      database = engine === 'postgres' ? await createPostgresDatabase() : undefined
      env = { LOG_LEVEL: 'warn', DATABASE_URL: database?.url ?? join(directory, 'books.db') }
      server = await startServer({ dataDirectory: directory, env })
    })
    after(async () => {
      await server?.stop()
      await database?.drop()
      removeDirectory(directory)
    })

    let bookId = 0
    test('alice and bob: create, title, year, delete; a reader reads it all and may not restore', async () => {
      const book = await as('alice').createBook({ title: 'Dune', author: 'Frank Herbert', year: 1965 })
      bookId = book.id
      await as('bob').updateBook(book.id, { title: 'Dune Messiah' })
      await as('alice').updateBook(book.id, { year: 1969 })
      await as('bob').deleteBook(book.id)
      const entries = await wholeHistory(as('reader'), book.id)
      assert.deepEqual(summary(entries), ['4 deleted bob', '3 updated alice', '2 updated bob', '1 created alice'])
      assert.deepEqual(entries[1]!.book, { id: book.id, title: 'Dune Messiah', author: 'Frank Herbert', year: 1969 })
      assert.deepEqual(await failure(as('reader').restore(book.id, 3)), [403, 'Forbidden'])
      assert.deepEqual(await failure(as('alice').restore(book.id, 4)), [404, 'Version not found'])
      assert.deepEqual(await failure(as('alice').restore(book.id, 40)), [404, 'Version not found'])
      assert.deepEqual(await failure(as('reader').history(987_654)), [404, 'Book not found'])
      assert.deepEqual(await failure(as('alice').restore(987_654, 1)), [404, 'Book not found'])
    })

    test('the deleted book comes back under its id; book-service history prints it', async () => {
      const restored = await as('alice').restore(bookId, 3)
      assert.deepEqual(restored, { id: bookId, title: 'Dune Messiah', author: 'Frank Herbert', year: 1969 })
      assert.deepEqual(await as('reader').getBook(bookId), restored)
      const cliEnv = { ...env, SECRET_TOKEN: TEST_SECRET }
      const table = await runCli(['history', String(bookId), '--url', server.url], { cwd: directory, env: cliEnv })
      assert.equal(table.code, 0, table.stderr)
      const lines = table.stdout.trimEnd().split('\n')
      assert.match(lines[0]!, /^VERSION +OPERATION +AT +ACTOR +TITLE +AUTHOR +YEAR$/)
      assert.match(lines[1]!, /^5 +restored +\d{4}-\d\d-\d\dT[\d:.]+Z +alice +Dune Messiah +Frank Herbert +1969$/)
      assert.match(lines[2]!, /^4 +deleted +\S+ +bob$/)
      assert.equal(lines.length, 6)
      const json = await runCli(['history', String(bookId), '--json', '--url', server.url], { cwd: directory, env: cliEnv })
      assert.equal(json.code, 0, json.stderr)
      const parsed = json.stdout.trimEnd().split('\n').map((line) => JSON.parse(line) as HistoryEntry)
      assert.deepEqual(parsed, await wholeHistory(as('reader'), bookId))
      const missing = await runCli(['history', '987654', '--url', server.url], { cwd: directory, env: cliEnv })
      assert.equal(missing.code, 1)
      assert.match(missing.stderr, /Book not found/)
    })

    test('13 versions, paged by 5; a stale If-Match is 412; of concurrent restores with If-Match exactly one wins', async () => {
      const alice = as('alice')
      const book = await alice.createBook({ title: 'Paged', author: 'P', year: 1 })
      for (let year = 2; year <= 13; year++) await alice.updateBook(book.id, { year })
      const pages: number[] = []
      for (let cursor: string | undefined; ; ) {
        const page = await alice.history(book.id, { limit: 5, cursor })
        pages.push(page.entries.length)
        if (page.cursor === undefined) break
        cursor = page.cursor
      }
      assert.deepEqual(pages, [5, 5, 3])
      assert.deepEqual((await wholeHistory(alice, book.id, 5)).map((entry) => entry.version), [13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1])

      const etag = (await fetch(`${server.url}/book/${book.id}`, { headers: { authorization: `Bearer ${tokens.alice}` } })).headers.get('etag')!
      await alice.updateBook(book.id, { title: 'Moved on' })
      assert.deepEqual(await failure(alice.restore(book.id, 1, { ifMatch: etag })), [412, 'Precondition failed'])
      const current = (await fetch(`${server.url}/book/${book.id}`, { headers: { authorization: `Bearer ${tokens.alice}` } })).headers.get('etag')!
      const outcomes = await Promise.allSettled(Array.from({ length: 8 }, (_, i) => as(i % 2 ? 'bob' : 'alice').restore(book.id, 1 + i, { ifMatch: current })))
      assert.equal(outcomes.filter((outcome) => outcome.status === 'fulfilled').length, 1)
      for (const outcome of outcomes) {
        if (outcome.status === 'rejected') assert.equal((outcome.reason as BookServiceError).status, 412)
      }
      const [newest] = await wholeHistory(alice, book.id)
      assert.equal(newest!.operation, 'restored')
      assert.equal(newest!.version, 15)
    })

    test('the history survives a restart and a backup restored', async () => {
      const before = await wholeHistory(as('reader'), bookId)
      await server.stop()
      server = await startServer({ dataDirectory: directory, env })
      assert.deepEqual(await wholeHistory(as('reader'), bookId), before)

      const backup = await runCli(['backup', join(directory, 'history.backup')], { cwd: directory, env: { ...env, SECRET_TOKEN: TEST_SECRET } })
      assert.equal(backup.code, 0, backup.stderr)
      await as('alice').updateBook(bookId, { title: 'After the backup' })
      await server.stop()
      if (engine === 'sqlite') {
        const restored = await runCli(['restore', join(directory, 'history.backup')], { cwd: directory, env: { ...env, SECRET_TOKEN: TEST_SECRET } })
        assert.equal(restored.code, 0, restored.stderr)
        server = await startServer({ dataDirectory: directory, env })
      } else {
        // On PostgreSQL a backup is a pg_dump archive, restored with pg_restore (docs/data.md "Backups and moving data").
        const target = await createPostgresDatabase()
        execFileSync('pg_restore', ['--no-owner', '--dbname', target.url, join(directory, 'history.backup')])
        await database!.drop()
        database = target
        env = { ...env, DATABASE_URL: target.url }
        server = await startServer({ dataDirectory: directory, env })
      }
      assert.deepEqual(await wholeHistory(as('reader'), bookId), before)
      // And it goes on from there: a restore after the restored backup is the next version.
      await as('bob').restore(bookId, 1)
      const [newest] = await wholeHistory(as('reader'), bookId)
      assert.deepEqual([newest!.version, newest!.operation, newest!.actor], [before[0]!.version + 1, 'restored', 'bob'])
    })
  })
}
