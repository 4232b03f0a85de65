import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { Database } from '../../../src/storage/contracts/database.js'
import { openTestDatabase, postgresSkipReason } from '../../support/engines.js'
import { UNKNOWN_CHANGE_CONTEXT } from '../../../src/storage/contracts/change-log.js'

// PostgreSQL databases the creates of one event-loop turn with one multi-row INSERT (group insert).
describe('PostgreSQL group insert', { skip: postgresSkipReason }, () => {
  let database: Database
  let cleanup: () => Promise<void>
  before(async () => ({ database, cleanup } = await openTestDatabase('postgres')))
  after(async () => {
    await database.close()
    await cleanup()
  })

  test('300 concurrent creates: each answered with its own book, distinct ascending ids in call order, all stored', async () => {
    const inputs = Array.from({ length: 300 }, (_, i) => ({ title: `Title ${i}`, author: `Author ${i % 7}`, year: 1000 + i }))
    const created = await Promise.all(inputs.map((input) => database.books.create(input, UNKNOWN_CHANGE_CONTEXT)))
    created.forEach((book, i) => assert.deepEqual({ ...book, id: 0 }, { id: 0, ...inputs[i] }))
    const ids = created.map((book) => book.id)
    assert.deepEqual(ids, [...ids].sort((a, b) => a - b), 'ids ascend in the order the creates were made')
    assert.equal(new Set(ids).size, 300)
    for (const book of created) {
      const stored = await database.books.get(book.id)
      assert.deepEqual({ id: stored?.id, title: stored?.title, author: stored?.author, year: stored?.year }, book)
    }
  })

  test('a create the database refuses fails alone: the others of its batch are stored', async () => {
    // A NUL character passes no HTTP validation (400); given to the storage directly, PostgreSQL refuses it.
    const results = await Promise.allSettled([
      database.books.create({ title: 'Before', author: 'A', year: 1 }, UNKNOWN_CHANGE_CONTEXT),
      database.books.create({ title: 'Bad\u0000title', author: 'A', year: 2 }, UNKNOWN_CHANGE_CONTEXT),
      database.books.create({ title: 'After', author: 'A', year: 3 }, UNKNOWN_CHANGE_CONTEXT)
    ])
    assert.equal(results[0].status, 'fulfilled')
    assert.equal(results[1].status, 'rejected')
    assert.equal(results[2].status, 'fulfilled')
    for (const result of [results[0], results[2]]) {
      const book = (result as PromiseFulfilledResult<{ id: number; title: string }>).value
      assert.equal((await database.books.get(book.id))?.title, book.title)
    }
  })
})
