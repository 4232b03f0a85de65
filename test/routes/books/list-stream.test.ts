import assert from 'node:assert/strict'
import { test } from 'node:test'
import { join } from 'node:path'
import type { FastifyInstance } from 'fastify'
import { SqliteDatabase } from '../../../src/storage/sqlite/sqlite-database.js'
import { authHeaders, buildTestApp } from '../../support/app.js'
import { removeDirectory, temporaryDirectory } from '../../support/server.js'
import { describeEachEngine } from '../../support/suite.js'
import { UNKNOWN_CHANGE_CONTEXT } from '../../../src/storage/contracts/change-log.js'

const auth = authHeaders()

/** Titles that exercise JSON escaping: quotes, backslashes, control characters, non-ASCII, U+2028. */
const awkward = ['"quoted" \\ back\\slash', 'tab\there\nnew line', 'Борхес 😀 ☃', 'line\u2028separator', '</script>']

async function createBooks(app: FastifyInstance, count: number) {
  const books = []
  for (let i = 0; i < count; i++) {
    const input = { title: `${awkward[i % awkward.length]} #${i}`, author: `Author ${i}`, year: (i % 19999) - 9999 }
    const response = await app.inject({ method: 'POST', url: '/book', headers: auth, payload: input })
    assert.equal(response.statusCode, 201, response.body)
    books.push(response.json().data)
  }
  return books
}

describeEachEngine('GET /books body is the envelope byte for byte', ({ withFreshApp }) => {
  for (const count of [0, 1, 2500]) {
    test(`${count} books`, async () => {
      await withFreshApp(async (app) => {
        const books = await createBooks(app, count)
        const response = await app.inject({ url: '/books', headers: auth })
        assert.equal(response.statusCode, 200)
        assert.equal(response.headers['content-type'], 'application/json; charset=utf-8')
        const expected = JSON.stringify({ status: 200, message: 'Books retrieved successfully', data: books })
        assert.equal(response.body, expected)
        if (count > 1000) {
          // Long lists (more than one storage page) are streamed, never built as one string.
          assert.equal(response.headers['transfer-encoding'], 'chunked')
          assert.equal(response.headers['content-length'], undefined)
        } else {
          assert.equal(response.headers['content-length'], String(Buffer.byteLength(expected)))
        }
      })
    })
  }
})

describeEachEngine('GET /books shared by concurrent requests', ({ withFreshApp }) => {
  test('concurrent lists each get the whole envelope, and see every write acknowledged before they came', async () => {
    await withFreshApp(async (app) => {
      const books = await createBooks(app, 1200)
      const first = await Promise.all([1, 2, 3].map(() => app.inject({ url: '/books', headers: auth })))
      const expected = JSON.stringify({ status: 200, message: 'Books retrieved successfully', data: books })
      for (const response of first) assert.equal(response.body, expected)

      // A list in flight while a book is created, then a list asked after the 201.
      const during = app.inject({ url: '/books', headers: auth })
      const [added] = await createBooks(app, 1)
      const after = await app.inject({ url: '/books', headers: auth })
      assert.deepEqual(after.json().data.at(-1), added)
      assert.equal(after.json().data.length, 1201)
      assert.ok([1200, 1201].includes((await during).json().data.length))
    })
  })
})

describeEachEngine('GET /books kept between writes', ({ withFreshApp }) => {
  test('a list asked again is the same; after each acknowledged create, update and delete it shows the change', async () => {
    await withFreshApp(async (app) => {
      const books = await createBooks(app, 1200)
      const list = async () => (await app.inject({ url: '/books', headers: auth })).json().data as Array<{ id: number; title: string }>
      assert.deepEqual(await list(), books)
      assert.deepEqual(await list(), books)
      const [added] = await createBooks(app, 1)
      assert.deepEqual((await list()).at(-1), added)
      const target = books[7]!
      assert.equal((await app.inject({ method: 'PUT', url: `/book/${target.id}`, headers: auth, payload: { title: 'Retitled' } })).statusCode, 200)
      assert.equal((await list()).find((book) => book.id === target.id)!.title, 'Retitled')
      assert.equal((await app.inject({ method: 'DELETE', url: `/book/${target.id}`, headers: auth })).statusCode, 200)
      const after = await list()
      assert.equal(after.length, 1200)
      assert.equal(after.find((book) => book.id === target.id), undefined)
    })
  })
})

test('GET /books on a SQLite file shows a book another connection committed (as book-service import does)', async () => {
  const directory = temporaryDirectory()
  const file = join(directory, 'books.db')
  const storage = await SqliteDatabase.open(file)
  const app = await buildTestApp({}, storage)
  const other = await SqliteDatabase.open(file)
  try {
    await createBooks(app, 3)
    const before = (await app.inject({ url: '/books', headers: auth })).json().data
    assert.equal(before.length, 3)
    const imported = await other.create({ title: 'Imported', author: 'Elsewhere', year: 2001 }, UNKNOWN_CHANGE_CONTEXT)
    const after = (await app.inject({ url: '/books', headers: auth })).json().data
    assert.deepEqual(after, [...before, imported])
  } finally {
    await other.close()
    await app.close()
    removeDirectory(directory)
  }
})
