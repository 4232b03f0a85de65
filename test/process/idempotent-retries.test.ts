import assert from 'node:assert/strict'
import { join } from 'node:path'
import { after, describe, test } from 'node:test'
import { signToken } from '../support/app.js'
import { createPostgresDatabase, engines, type TestDatabase } from '../support/engines.js'
import { removeDirectory, startServer, temporaryDirectory } from '../support/server.js'

/**
 * `Idempotency-Key` on the real process (docs/contract.md "Hardening"): the key's answer is
 * stored with the book, so a retry after the process was killed (the client never saw an
 * answer, or saw a 503) is answered with the first book, on the restarted process or another
 * instance, and creates nothing.
 */
const auth = { authorization: `Bearer ${signToken({ sub: 'retrier' })}`, 'content-type': 'application/json' }
const dune = JSON.stringify({ title: 'Dune', author: 'Frank Herbert', year: 1965 })

for (const { engine, skip } of engines) {
  describe(`Idempotency-Key across a SIGKILL and a second instance (real process) [${engine}]`, { skip }, () => {
    const directories: string[] = []
    let database: TestDatabase | undefined
    after(async () => {
      directories.forEach(removeDirectory)
      await database?.drop()
    })

    test('the retry gets the first book from the restarted process and from a second instance; one book stored', async () => {
      const directory = temporaryDirectory()
      directories.push(directory)
      database = engine === 'postgres' ? await createPostgresDatabase() : undefined
      const env = { DATABASE_URL: database?.url ?? join(directory, 'books.db') }
      const post = (url: string, key: string, body = dune) =>
        fetch(`${url}/book`, { method: 'POST', headers: { ...auth, 'idempotency-key': key }, body })

      const first = await startServer({ dataDirectory: directory, env })
      const created = await post(first.url, 'order-7')
      assert.equal(created.status, 201)
      const book = ((await created.json()) as { data: unknown }).data
      assert.equal(await first.stop('SIGKILL'), 'SIGKILL')

      const restarted = await startServer({ dataDirectory: directory, env })
      // A second instance on the same database (SQLite: a second process on the same file).
      const second = await startServer({ dataDirectory: directory, env })
      try {
        for (const url of [restarted.url, second.url]) {
          const retry = await post(url, 'order-7')
          assert.equal(retry.status, 201)
          assert.deepEqual(await retry.json(), { status: 201, message: 'Book created successfully', data: book })
          const other = await post(url, 'order-7', JSON.stringify({ title: 'Dune', author: 'Frank Herbert', year: 1966 }))
          assert.equal(other.status, 422)
        }
        const listed = (await (await fetch(`${second.url}/books`, { headers: auth })).json()) as { data: unknown[] }
        assert.deepEqual(listed.data, [book])
      } finally {
        assert.equal(await second.stop(), 0)
        assert.equal(await restarted.stop(), 0)
      }
    })
  })
}
