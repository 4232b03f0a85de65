import assert from 'node:assert/strict'
import { test } from 'node:test'
import fc from 'fast-check'
import type { FastifyInstance } from 'fastify'
import type { Book } from '../../support/books.js'
import { auth, list, pages } from '../../support/list-pages.js'
import { referenceSearch } from '../../support/search-reference.js'
import { describeEachEngine } from '../../support/suite.js'

/**
 * Few letters, some with diacritics, so that random titles, authors and searches meet often; a
 * digit, a combining mark and punctuation that the statements' patterns escape (LIKE's `%` `_` `!`,
 * GLOB's `*` `[` `?`, a regular expression's `\\` and `(`), each also a word's boundary.
 */
const letter = fc.constantFrom('a', 'á', 'A', 'r', 'k', 'n', 'e', 'é', 's', 'd', 'ç', 'c', ' ', '.', '1', '\u0301', '%', '_', '!', '*', '[', '?', '\\', '(')
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

/**
 * Searches taken from a catalogue's own words: a title or author word (or the whole title) with a
 * typo (one letter replaced, dropped, added or two swapped), in capitals or with a diacritic, cut to
 * one or two characters, quoted, or two of them together.
 */
function queryFrom(books: Omit<Book, 'id'>[]): fc.Arbitrary<string> {
  const words = [...new Set(books.flatMap((book) => `${book.title} ${book.author}`.split(/[\s.]+/u)).filter((word) => word !== ''))]
  if (words.length === 0) return query
  const word = fc.constantFrom(...words)
  const typo = fc.tuple(word, fc.nat(), fc.constantFrom('a', 'e', 'z', 'é', 'k'), fc.constantFrom('replace', 'drop', 'add', 'swap')).map(([text, at, letter, edit]) => {
    const characters = [...text]
    const i = at % characters.length
    if (edit === 'replace') characters[i] = letter
    else if (edit === 'drop') characters.splice(i, 1)
    else if (edit === 'add') characters.splice(i, 0, letter)
    else if (i + 1 < characters.length) [characters[i], characters[i + 1]] = [characters[i + 1]!, characters[i]!]
    return characters.join('')
  })
  const variant = fc.oneof(
    word,
    typo,
    word.map((text) => text.toUpperCase()),
    word.map((text) => text.replace(/e/u, 'é').replace(/a/u, 'à')),
    fc.tuple(word, fc.integer({ min: 1, max: 2 })).map(([text, size]) => [...text].slice(0, size).join('')),
    fc.constantFrom(...books.map((book) => book.title))
  )
  return fc.oneof(
    { weight: 3, arbitrary: variant },
    { weight: 1, arbitrary: variant.map((text) => `"${text}"`) },
    { weight: 2, arbitrary: fc.tuple(variant, variant).map(([a, b]) => `${a} ${b}`) },
    { weight: 1, arbitrary: query }
  )
}

/** Titles and authors of a few words from a small vocabulary, so that searches meet many books in every rank. */
const vocabulary = fc.constantFrom('the', 'darkness', 'dárkness', 'silent', 'empire', 'forest', 'of', 'a', 'é', 'volume', 'le', 'guin', 'garcía', 'night', 'nights', 'tide')
const phrase = fc.array(vocabulary, { minLength: 1, maxLength: 4 }).map((words) => words.join(' '))
const catalogueBook = fc.record({ title: fc.oneof(phrase, text), author: fc.oneof(phrase, text), year: fc.integer({ min: 1900, max: 1910 }) })

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

/**
 * How the searches are read: as the service reads them (few candidates ranked whole, the others
 * rank by rank), and always rank by rank in windows of a few ids (so that these small catalogues
 * take every path of a large one: storage/sql/search-results.ts).
 */
const readings = [
  { name: 'as configured', options: {}, runs: 25 },
  { name: 'rank by rank, windows of 50 ids', options: { search: { fewCandidates: 0, windowSize: 50 } }, runs: 10 },
  // SQLite in a file: the walks' statements run on the search reader thread, with its own connection.
  { name: 'rank by rank, windows of 50 ids, SQLite in a file', options: { search: { fewCandidates: 0, windowSize: 50 }, sqliteFile: true }, runs: 10 },
  { name: 'at most 3 candidates ranked whole, windows of 50 ids', options: { search: { fewCandidates: 3, windowSize: 50 } }, runs: 10 }
]

for (const reading of readings) {
describeEachEngine(`GET /books?q= answers what a scan answers, ${reading.name}`, ({ app }) => {
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
      { numRuns: 40 * reading.runs / 25 }
    )
  })
}, {}, reading.options)

describeEachEngine(`GET /books?q= pages through what a scan answers, ${reading.name}`, ({ app: shared }) => {
  test('every page in relevance order, by the cursor of the Link header (fast-check)', async () => {
    // One database for every run: each run adds its catalogue to the books of the runs before it.
    const books: Book[] = []
    await fc.assert(
      fc.asyncProperty(
        fc.array(catalogueBook, { minLength: 1, maxLength: 40 }).chain((books) => fc.tuple(fc.constant(books), fc.array(queryFrom(books), { minLength: 1, maxLength: 5 }), fc.integer({ min: 1, max: 7 }))),
        async ([catalogue, queries, limit]) => {
          const app = shared()
          {
            for (const book of catalogue) {
              const response = await app.inject({ method: 'POST', url: '/book', headers: auth, payload: book })
              assert.equal(response.statusCode, 201, response.body)
              books.push(response.json().data as Book)
            }
            for (const q of queries) {
              const expected = referenceSearch(q, books)
              const paged = await pages(app, `/books?q=${encodeURIComponent(q)}&limit=${limit}`)
              for (const page of paged.slice(0, -1)) assert.equal(page.length, limit, q)
              assert.deepEqual(paged.flat(), expected, q)
              const counted = await list(app, `/books?q=${encodeURIComponent(q)}&count=true&limit=1`)
              assert.equal(counted.response.headers['x-total-count'], String(expected.length), q)
            }
          }
        }
      ),
      { numRuns: reading.runs }
    )
  })
}, {}, reading.options)
}

describeEachEngine('GET /books?q= with a five-character term, rank by rank', ({ app: shared }) => {
  test('finds the words one replacement, removal, insertion or swap away, as a scan does', async () => {
    // Five characters is the one length the search index cannot narrow one-edit matches of
    // (storage/sql/search-pieces.ts): the walk's statements keep the books by one pattern per edit.
    const app = shared()
    const books: Book[] = []
    for (const title of ['night', 'nights', 'tide', 'the silent night', 'a tide', 'knight', 'empire', 'forest', 'nigh', 'tied up']) {
      const response = await app.inject({ method: 'POST', url: '/book', headers: auth, payload: { title, author: 'Anon', year: 1900 } })
      books.push(response.json().data as Book)
    }
    // A swap, a replacement, two insertions (in the book's word), a removal at the end and inside.
    for (const q of ['nihgt', 'nigjt', 'forst', 'nighs', 'tidex', 'tidxe']) {
      const expected = referenceSearch(q, books)
      assert.ok(expected.length > 0, q)
      assert.deepEqual((await pages(app, `/books?q=${q}&limit=2`)).flat(), expected, q)
    }
  })
}, {}, { search: { fewCandidates: 0, windowSize: 4 } })
