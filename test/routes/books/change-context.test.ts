import assert from 'node:assert/strict'
import { join } from 'node:path'
import { after, describe, test } from 'node:test'
import Sqlite from 'better-sqlite3'
import pg from 'pg'
import type { FastifyInstance } from 'fastify'
import type { Database } from '../../../src/storage/contracts/database.js'
import type { BookChange } from '../../../src/storage/contracts/change-log.js'
import { PostgresDatabase } from '../../../src/storage/postgres/postgres-database.js'
import { SqliteDatabase } from '../../../src/storage/sqlite/sqlite-database.js'
import { authHeaders, buildTestApp, signToken } from '../../support/app.js'
import { createPostgresDatabase, engines } from '../../support/engines.js'
import { removeDirectory, temporaryDirectory } from '../../support/server.js'

/** A database of `engine` of its own, opened, and a SQL session of another program on the same database. */
async function databaseAndSession(engine: 'sqlite' | 'postgres') {
  if (engine === 'sqlite') {
    const directory = temporaryDirectory()
    const path = join(directory, 'books.db')
    const database = await SqliteDatabase.open(path)
    const session = new Sqlite(path)
    session.pragma('busy_timeout = 5000')
    return {
      database: database as Database,
      sql: async (text: string, values: unknown[] = []) => void session.prepare(text).run(...values),
      cleanup: async () => {
        session.close()
        removeDirectory(directory)
      }
    }
  }
  const scratch = await createPostgresDatabase()
  const database = await PostgresDatabase.open(scratch.url, { poolSize: 4, startupTimeoutMs: 0 })
  const session = new pg.Client({ connectionString: scratch.url })
  await session.connect()
  return {
    database: database as Database,
    sql: async (text: string, values: unknown[] = []) => void (await session.query(text.replace(/\?/g, (_, at: number) => `$${text.slice(0, at).split('?').length}`), values)),
    cleanup: async () => {
      await session.end()
      await scratch.drop()
    }
  }
}

/** Every change of the log, waiting a little for the numbering (PostgreSQL numbers after commit). */
async function allChanges(database: Database, count: number): Promise<BookChange[]> {
  for (let attempt = 0; ; attempt++) {
    const changes = await database.changes.changesAfter(0, 1000)
    if (changes.length >= count || attempt === 100) return changes
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

for (const { engine, skip } of engines) {
  describe(`each change records its actor and request id (docs/change-feed.md "Change log") [${engine}]`, { skip }, () => {
    const cleanups: Array<() => Promise<void>> = []
    after(async () => {
      for (const cleanup of cleanups.reverse()) await cleanup()
    })
    async function open(): Promise<{ app: FastifyInstance; database: Database; sql: (text: string, values?: unknown[]) => Promise<void> }> {
      const opened = await databaseAndSession(engine)
      const app = await buildTestApp({}, opened.database)
      cleanups.push(opened.cleanup, () => app.close())
      return { app, database: opened.database, sql: opened.sql }
    }

    test("a write with a token whose sub is alice: actor alice and the request's id; a SQL session's write: nulls", async () => {
      const { app, database, sql } = await open()
      const alice = authHeaders(signToken({ sub: 'alice' }))
      const created = await app.inject({ method: 'POST', url: '/book', headers: alice, payload: { title: 'Dune', author: 'Frank Herbert', year: 1965 } })
      assert.equal(created.statusCode, 201)
      const id = created.json().data.id as number
      const etag = (await app.inject({ method: 'GET', url: `/book/${id}`, headers: alice })).headers.etag as string
      const updated = await app.inject({ method: 'PUT', url: `/book/${id}`, headers: { ...alice, 'if-match': etag }, payload: { year: 1966 } })
      assert.equal(updated.statusCode, 200)
      await sql('UPDATE books SET year = ? WHERE id = ?', [1967, id])
      const removed = await app.inject({ method: 'DELETE', url: `/book/${id}`, headers: authHeaders(signToken({ sub: 42 })) })
      assert.equal(removed.statusCode, 200)
      const changes = await allChanges(database, 4)
      assert.deepEqual(
        changes.map(({ operation, actor, requestId }) => ({ operation, actor, requestId })),
        [
          { operation: 'created', actor: 'alice', requestId: created.headers['x-request-id'] },
          { operation: 'updated', actor: 'alice', requestId: updated.headers['x-request-id'] },
          { operation: 'updated', actor: null, requestId: null },
          { operation: 'deleted', actor: '42', requestId: removed.headers['x-request-id'] }
        ]
      )
    })

    test('creates of several tokens in one group write each carry their own; a token without sub and an Idempotency-Key create too', async () => {
      const { app, database } = await open()
      const subjects = ['alice', 'bob', { team: 'c' }, undefined, 'dave']
      const answers = await Promise.all(
        subjects.map((sub, n) =>
          app.inject({
            method: 'POST',
            url: '/book',
            headers: { ...authHeaders(signToken(sub === undefined ? {} : { sub })), ...(n === 4 ? { 'idempotency-key': 'once' } : {}) },
            payload: { title: `T${n}`, author: 'A', year: 2000 + n }
          })
        )
      )
      const expected = new Map(
        answers.map((answer, n) => {
          assert.equal(answer.statusCode, 201)
          const sub = subjects[n]
          const actor = sub === undefined ? null : typeof sub === 'string' ? sub : JSON.stringify(sub)
          return [answer.json().data.id as number, { actor, requestId: answer.headers['x-request-id'] }]
        })
      )
      const changes = await allChanges(database, subjects.length)
      assert.equal(changes.length, subjects.length)
      for (const change of changes) assert.deepEqual({ actor: change.actor, requestId: change.requestId }, expected.get(change.bookId))
    })

    test('a SQL session that creates and deletes: nulls, even on a connection the service wrote on before', async () => {
      const { app, database, sql } = await open()
      for (let n = 0; n < 3; n++) {
        const answer = await app.inject({ method: 'POST', url: '/book', headers: authHeaders(signToken({ sub: 'alice' })), payload: { title: `S${n}`, author: 'A', year: 2000 } })
        assert.equal(answer.statusCode, 201)
      }
      await sql('INSERT INTO books (title, author, year, title_folded, author_folded) VALUES (?, ?, ?, ?, ?)', ['X', 'Y', 1, 'x', 'y'])
      await sql("DELETE FROM books WHERE title = 'S0'")
      const changes = await allChanges(database, 5)
      assert.deepEqual(
        changes.map(({ operation, actor }) => ({ operation, actor })),
        [
          { operation: 'created', actor: 'alice' },
          { operation: 'created', actor: 'alice' },
          { operation: 'created', actor: 'alice' },
          { operation: 'created', actor: null },
          { operation: 'deleted', actor: null }
        ]
      )
      // The service's own later writes are not affected by the session's, nor the other way round.
      const more = await app.inject({ method: 'POST', url: '/book', headers: authHeaders(signToken({ sub: 'erin' })), payload: { title: 'Z', author: 'Z', year: 1 } })
      assert.equal((await allChanges(database, 6)).at(-1)!.actor, 'erin')
      assert.equal((await allChanges(database, 6)).at(-1)!.requestId, more.headers['x-request-id'])
    })
  })
}
