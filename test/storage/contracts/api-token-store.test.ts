import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { join } from 'node:path'
import { after, describe, test } from 'node:test'
import Sqlite from 'better-sqlite3'
import pg from 'pg'
import type { Database } from '../../../src/storage/contracts/database.js'
import type { NewApiToken } from '../../../src/storage/contracts/api-token-store.js'
import type { Engine } from '../../../src/storage/contracts/engine.js'
import { PostgresDatabase } from '../../../src/storage/postgres/postgres-database.js'
import { SqliteDatabase } from '../../../src/storage/sqlite/sqlite-database.js'
import { createPostgresDatabase, engines } from '../../support/engines.js'
import { removeDirectory, temporaryDirectory } from '../../support/server.js'

/** A database of `engine` of its own, and a statement run on it from outside the service (as another release would). */
async function openDatabase(engine: Engine): Promise<{ database: Database; outside: (sql: string) => Promise<void>; drop: () => Promise<void> }> {
  if (engine === 'sqlite') {
    const directory = temporaryDirectory()
    const path = join(directory, 'books.db')
    return {
      database: await SqliteDatabase.open(path),
      outside: async (sql) => {
        const connection = new Sqlite(path)
        connection.exec(sql)
        connection.close()
      },
      drop: async () => removeDirectory(directory)
    }
  }
  const scratch = await createPostgresDatabase()
  return {
    database: await PostgresDatabase.open(scratch.url, { poolSize: 2, startupTimeoutMs: 0 }),
    outside: async (sql) => {
      const client = new pg.Client({ connectionString: scratch.url })
      await client.connect()
      await client.query(sql)
      await client.end()
    },
    drop: () => scratch.drop()
  }
}

const token = (username: string, fields: Partial<NewApiToken> = {}): NewApiToken => ({
  id: randomUUID(), username, name: 'n', role: 'reader', createdAt: 1_000_000, expiresAt: null, ...fields
})

for (const { engine, skip } of engines) {
  describe(`the API token store [${engine}]`, { skip }, () => {
    const cleanups: Array<() => Promise<void>> = []
    after(async () => {
      for (const cleanup of cleanups.reverse()) await cleanup()
    })
    async function opened() {
      const handle = await openDatabase(engine)
      cleanups.push(handle.drop, () => handle.database.close())
      await handle.database.accounts.create({ username: 'Ann', passwordHash: 'x', role: 'editor' })
      await handle.database.accounts.create({ username: 'bob', passwordHash: 'x', role: 'admin' })
      return handle
    }

    test('create for an account (any case) or missing; list newest first, one account\'s or all; revoke own or any', async () => {
      const { database } = await opened()
      const store = database.apiTokens
      assert.equal(await store.create(token('nobody')), 'missing')
      assert.equal(await store.create(token('nul\0name')), 'missing')
      const first = token('ANN', { name: 'first', expiresAt: 2_000_000_000_000 })
      assert.deepEqual(await store.create(first), { ...first, username: 'Ann', lastUsedAt: null })
      const second = token('ann', { name: 'second', role: 'editor' })
      await store.create(second)
      const bobs = token('bob', { role: 'admin' })
      await store.create(bobs)
      assert.deepEqual((await store.list('Ann')).map((stored) => stored.name), ['second', 'first'])
      assert.deepEqual((await store.list()).map((stored) => stored.id), [bobs.id, second.id, first.id])
      assert.deepEqual(await store.list('nobody'), [])
      assert.deepEqual(await store.standing(second.id), { usernameKey: 'ann', role: 'editor', accountRole: 'editor', lastUsedAt: null })
      assert.equal(await store.standing('not a token id'), undefined)

      assert.equal(await store.revoke(bobs.id, 'ann'), false)
      assert.equal(await store.revoke('not\0an id'), false)
      assert.equal(await store.revoke(first.id, 'ANN'), true)
      assert.equal(await store.revoke(first.id), false)
      assert.equal(await store.revoke(bobs.id), true)
      assert.deepEqual((await store.list()).map((stored) => stored.id), [second.id])
      assert.equal(await store.standing(first.id), undefined)
    })

    test('recordUse writes only when no use since `since` is recorded', async () => {
      const { database } = await opened()
      const store = database.apiTokens
      const used = token('bob')
      await store.create(used)
      await store.recordUse(used.id, 100_000, 40_000)
      assert.equal((await store.standing(used.id))?.lastUsedAt, 100_000)
      await store.recordUse(used.id, 130_000, 70_000)
      assert.equal((await store.standing(used.id))?.lastUsedAt, 100_000, 'a use within the interval is not written')
      await store.recordUse(used.id, 170_000, 110_000)
      assert.equal((await store.list('bob'))[0]?.lastUsedAt, 170_000)
    })

    test('an account\'s tokens go with it; a row an older release left is no token of an account made again', async () => {
      const { database, outside } = await opened()
      const kept = token('ann')
      await database.apiTokens.create(kept)
      assert.equal(await database.accounts.delete('ann'), 'deleted')
      assert.deepEqual(await database.apiTokens.list(), [])

      const left = token('bob', { role: 'admin' })
      await database.apiTokens.create(left)
      // A release that does not know API tokens deletes the account and leaves its rows.
      await outside("DELETE FROM accounts WHERE username_key = 'bob'")
      assert.equal(await database.apiTokens.standing(left.id), undefined)
      await new Promise((resolve) => setTimeout(resolve, 5))
      await database.accounts.create({ username: 'bob', passwordHash: 'x', role: 'admin' })
      assert.equal(await database.apiTokens.standing(left.id), undefined)
      assert.deepEqual(await database.apiTokens.list('bob'), [])
    })
  })
}
