import assert from 'node:assert/strict'
import { join } from 'node:path'
import { after, describe, test } from 'node:test'
import BetterSqlite3 from 'better-sqlite3'
import pg from 'pg'
import type { FastifyInstance } from 'fastify'
import { PostgresDatabase } from '../../../src/storage/postgres/postgres-database.js'
import { SqliteDatabase } from '../../../src/storage/sqlite/sqlite-database.js'
import { authHeaders, buildTestApp, signToken } from '../../support/app.js'
import { createBook } from '../../support/books.js'
import { createPostgresDatabase, engines } from '../../support/engines.js'
import { removeDirectory, temporaryDirectory } from '../../support/server.js'

const editor = authHeaders(signToken({ sub: 'ed', role: 'editor' }))

/** An app on a database another program can write too, and that program's one statement. */
async function appWithOtherWriter(engine: 'sqlite' | 'postgres') {
  if (engine === 'sqlite') {
    const directory = temporaryDirectory()
    const path = join(directory, 'books.db')
    const app = await buildTestApp({}, await SqliteDatabase.open(path))
    const other = new BetterSqlite3(path)
    return {
      app,
      write: async (sql: string, values: unknown[]) => void other.prepare(sql.replace(/\$\d/g, '?')).run(...values),
      close: async () => (other.close(), await app.close(), removeDirectory(directory))
    }
  }
  const scratch = await createPostgresDatabase()
  const app = await buildTestApp({}, await PostgresDatabase.open(scratch.url, { poolSize: 3, startupTimeoutMs: 0 }))
  const other = new pg.Client({ connectionString: scratch.url })
  await other.connect()
  return {
    app,
    write: async (sql: string, values: unknown[]) => void (await other.query(sql, values)),
    close: async () => (await other.end(), await app.close(), await scratch.drop())
  }
}

async function history(app: FastifyInstance, id: number) {
  return (await app.inject({ url: `/book/${id}/history`, headers: editor })).json().data as Array<{ version: number; book: unknown }>
}

for (const { engine, skip } of engines) {
  describe(`restore of a version today's rules refuse [${engine}]`, { skip }, () => {
    let setup: Awaited<ReturnType<typeof appWithOtherWriter>> | undefined
    after(() => setup?.close())

    test('a version another program wrote (601-character title, year 99999, NUL in the author): 422 Version cannot be restored, nothing written', async () => {
      setup = await appWithOtherWriter(engine)
      const { app, write } = setup
      const book = await createBook(app, { title: 'Dune', author: 'Frank Herbert', year: 1965 })
      const bad: Array<[string, unknown[]]> = [
        ['UPDATE books SET title = $1, version = version + 1 WHERE id = $2', ['x'.repeat(601), book.id]],
        ['UPDATE books SET title = $1, year = $2, version = version + 1 WHERE id = $3', ['Dune', 99999, book.id]],
        // PostgreSQL cannot store a NUL in text at all; SQLite can.
        ...(engine === 'sqlite' ? [['UPDATE books SET year = $1, author = $2, version = version + 1 WHERE id = $3', [1965, 'Frank\u0000Herbert', book.id]] as [string, unknown[]]] : [])
      ]
      const refused: number[] = []
      for (const [sql, values] of bad) {
        await write(sql, values)
        refused.push((await history(app, book.id))[0]!.version)
      }
      // Back to a valid book, so the refused versions are not the current one.
      const put = await app.inject({ method: 'PUT', url: `/book/${book.id}`, headers: editor, payload: { title: 'Dune', author: 'Frank Herbert', year: 1965 } })
      assert.equal(put.statusCode, 200)
      const before = await history(app, book.id)
      for (const version of refused) {
        const restored = await app.inject({ method: 'POST', url: `/book/${book.id}/restore`, headers: editor, payload: { version } })
        assert.deepEqual(restored.json(), { status: 422, message: 'Version cannot be restored', data: null }, `version ${version}`)
      }
      assert.deepEqual(await history(app, book.id), before, 'no version written')
      const current = await app.inject({ url: `/book/${book.id}`, headers: editor })
      assert.deepEqual(current.json().data, { id: book.id, title: 'Dune', author: 'Frank Herbert', year: 1965 })
      // A version within the rules is restored as before.
      const first = before.at(-1)!.version
      const ok = await app.inject({ method: 'POST', url: `/book/${book.id}/restore`, headers: editor, payload: { version: first } })
      assert.equal(ok.statusCode, 200)
    })
  })
}
