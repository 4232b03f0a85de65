import assert from 'node:assert/strict'
import { test } from 'node:test'
import fc from 'fast-check'
import type { FastifyInstance } from 'fastify'
import type { Book } from '../../support/books.js'
import { auth, list } from '../../support/list-pages.js'
import { referenceSearch } from '../../support/search-reference.js'
import { describeEachEngine } from '../../support/suite.js'

/** Few letters, some with diacritics, so that random titles, authors and searches meet often. */
const letter = fc.constantFrom('a', 'á', 'A', 'r', 'k', 'n', 'e', 'é', 's', 'd', 'ç', 'c', ' ', '.')
const text = fc.array(letter, { minLength: 1, maxLength: 14 }).map((letters) => letters.join('')).filter((value) => value.trim() !== '')
const fields = fc.record({ title: text, author: text, year: fc.integer({ min: 1900, max: 1910 }) })

type Command = { kind: 'create'; book: Omit<Book, 'id'> } | { kind: 'update'; pick: number; patch: Partial<Omit<Book, 'id'>> } | { kind: 'delete'; pick: number }
const command: fc.Arbitrary<Command> = fc.oneof(
  fields.map((book) => ({ kind: 'create' as const, book })),
  fc.record({ pick: fc.nat(), patch: fc.record({ title: text, author: text }, { requiredKeys: [] }) }).map((value) => ({ kind: 'update' as const, ...value })),
  fc.nat().map((pick) => ({ kind: 'delete' as const, pick }))
)
/** Searches: one or two terms of the same letters, some quoted, some long enough for one edit. */
const term = fc.array(fc.constantFrom('a', 'r', 'k', 'n', 'e', 's', 'd', 'c', 'á'), { minLength: 1, maxLength: 7 }).map((letters) => letters.join(''))
const query = fc
  .tuple(term, fc.option(term), fc.boolean())
  .map(([first, second, quoted]) => `${quoted ? `"${first}"` : first}${second ? ` ${second}` : ''}`)

/** Runs `commands` in groups of three at once (concurrent writes), keeping `model` in step. */
async function run(app: FastifyInstance, model: Map<number, Book>, commands: Command[]) {
  for (let start = 0; start < commands.length; start += 3) {
    const ids = [...model.keys()]
    const picked = new Set<number>()
    await Promise.all(
      commands.slice(start, start + 3).map(async (step) => {
        if (step.kind === 'create') {
          const response = await app.inject({ method: 'POST', url: '/book', headers: auth, payload: step.book })
          assert.equal(response.statusCode, 201, response.body)
          const book = response.json().data as Book
          model.set(book.id, book)
          return
        }
        if (ids.length === 0) return
        const id = ids[step.pick % ids.length]!
        if (picked.has(id)) return
        picked.add(id)
        if (step.kind === 'update') {
          const response = await app.inject({ method: 'PUT', url: `/book/${id}`, headers: auth, payload: step.patch })
          assert.equal(response.statusCode, 200, response.body)
          model.set(id, response.json().data as Book)
        } else {
          const response = await app.inject({ method: 'DELETE', url: `/book/${id}`, headers: auth })
          assert.equal(response.statusCode, 200, response.body)
          model.delete(id)
        }
      })
    )
  }
}

describeEachEngine('GET /books?q= answers what a scan answers', ({ app }) => {
  test('after any sequence of creates, updates and deletes (fast-check)', async () => {
    const model = new Map<number, Book>()
    await fc.assert(
      fc.asyncProperty(fc.array(command, { minLength: 1, maxLength: 15 }), fc.array(query, { minLength: 1, maxLength: 4 }), async (commands, queries) => {
        await run(app(), model, commands)
        const books = [...model.values()].sort((a, b) => a.id - b.id)
        for (const q of queries) {
          const answer = await list(app(), `/books?q=${encodeURIComponent(q)}&count=true`)
          const expected = referenceSearch(q, books)
          assert.deepEqual(answer.books, expected, q)
          assert.equal(answer.response.headers['x-total-count'], String(expected.length), q)
        }
      }),
      { numRuns: 40 }
    )
  })
})
