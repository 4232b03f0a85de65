import assert from 'node:assert/strict'
import { test } from 'node:test'
import { createBook as create, type Book } from '../../support/books.js'
import { assertInvalid, auth, list, pages } from '../../support/list-pages.js'
import { referenceSearch } from '../../support/search-reference.js'
import { describeEachEngine } from '../../support/suite.js'

/** Books for the contract's examples (docs/contract.md "Search"). */
const library = [
  { title: 'The Left Hand of Darkness', author: 'Ursula K. Le Guin', year: 1969 },
  { title: 'A Wizard of Earthsea', author: 'Ursula K. Le Guin', year: 1968 },
  { title: 'Cien años de soledad', author: 'Gabriel García Márquez', year: 1967 },
  { title: 'Darkness at Noon', author: 'Arthur Koestler', year: 1940 },
  { title: 'Heart of Darkness', author: 'Joseph Conrad', year: 1899 },
  { title: 'Darkness', author: 'Anon', year: 2001 },
  { title: 'Darkly Dreaming Dexter', author: 'Jeff Lindsay', year: 2004 },
  { title: 'Dreamsnake', author: 'Vonda N. McIntyre', year: 1978 },
  { title: 'The Dispossessed', author: 'Ursula K. Le Guin', year: 1974 },
  { title: 'Love in the Time of Cholera', author: 'Gabriel Garcia Marquez', year: 1985 },
  { title: 'Guinness World Records', author: 'Guinness', year: 2020 }
]

const titles = (books: Book[]) => books.map((book) => book.title)
const search = (q: string, rest = '') => `/books?q=${encodeURIComponent(q)}${rest}`

describeEachEngine('GET /books?q= (search)', ({ withFreshApp }) => {
  test('the contract examples: infix, across fields, diacritics, quoted phrase, one edit, ranking', async () => {
    await withFreshApp(async (app) => {
      const books: Book[] = []
      for (const book of library) books.push(await create(app, book))
      // Infix: a substring inside a word.
      // Infix: a substring inside a word (all "other title matches": by id).
      assert.deepEqual(titles((await list(app, search('arkne'))).books), [
        'The Left Hand of Darkness',
        'Darkness at Noon',
        'Heart of Darkness',
        'Darkness'
      ])
      // Across fields: both terms in the author.
      assert.deepEqual(titles((await list(app, search('le guin'))).books), ['The Left Hand of Darkness', 'A Wizard of Earthsea', 'The Dispossessed'])
      // Diacritics and case ignored, both ways.
      assert.deepEqual(titles((await list(app, search('garcia'))).books), ['Cien años de soledad', 'Love in the Time of Cholera'])
      assert.deepEqual(titles((await list(app, search('GARCÍA'))).books), ['Cien años de soledad', 'Love in the Time of Cholera'])
      assert.deepEqual(titles((await list(app, search('anos'))).books), ['Cien años de soledad'])
      // A quoted phrase is one term: "k. le" occurs only in the author, as written.
      assert.deepEqual(titles((await list(app, search('"k. le" dispossessed'))).books), ['The Dispossessed'])
      assert.deepEqual(titles((await list(app, search('"guin ursula"'))).books), [])
      assert.deepEqual(titles((await list(app, search('guin ursula'))).books), ['The Left Hand of Darkness', 'A Wizard of Earthsea', 'The Dispossessed'])
      // One edit: a transposition; ranked after every exact match.
      assert.deepEqual(titles((await list(app, search('drakness'))).books), ['The Left Hand of Darkness', 'Darkness at Noon', 'Heart of Darkness', 'Darkness'])
      // Titles starting with the text (by id), then a title word starting with it.
      assert.deepEqual(titles((await list(app, search('darknes'))).books), ['Darkness at Noon', 'Darkness', 'The Left Hand of Darkness', 'Heart of Darkness'])
      // Quoted: no one-edit tolerance.
      assert.deepEqual((await list(app, search('"drakness"'))).books, [])
      // One insertion: "guiness" is one edit from the word "guinness".
      assert.deepEqual(titles((await list(app, search('guiness'))).books), ['Guinness World Records'])
      assert.deepEqual(titles((await list(app, search('darkness'))).books), ['Darkness', 'Darkness at Noon', 'The Left Hand of Darkness', 'Heart of Darkness'])
      // Every answer is what the plain reference scan answers.
      for (const q of ['arkne', 'le guin', 'garcia', 'drakness', 'guiness', 'dark', 'dreaming', 'draming', 'k. le', 'o', 'the', 'noon darkness']) {
        assert.deepEqual((await list(app, search(q))).books, referenceSearch(q, books), q)
      }
    })
  })

  test('relevance order: exact title, title start, title word start, other title, author only, approximate', async () => {
    await withFreshApp(async (app) => {
      const made = []
      for (const title of ['Author only', 'Nightfall', 'Night', 'The Night Watch', 'Night Train', 'Knight', 'Nigth']) {
        made.push(await create(app, { title, author: title === 'Author only' ? 'Night Person' : 'Someone', year: 2000 }))
      }
      made.push(await create(app, { title: 'Plain', author: 'Nihgt Owl', year: 2000 }))
      // "night" (5 characters): exact title, starts, word starts (by id), inside a word, author only, one edit.
      assert.deepEqual(titles((await list(app, search('night'))).books), [
        'Night',
        'Nightfall',
        'Night Train',
        'The Night Watch',
        'Knight',
        'Author only',
        'Nigth',
        'Plain'
      ])
    })
  })

  test('with sort, with the other filters, count, paging through the results', async () => {
    await withFreshApp(async (app) => {
      const books: Book[] = []
      for (const book of library) books.push(await create(app, book))
      const expected = referenceSearch('dark', books)
      assert.equal(expected.length, 5)
      const byYear = [...expected].sort((a, b) => a.year - b.year || a.id - b.id)
      assert.deepEqual((await list(app, search('dark', '&sort=year'))).books, byYear)
      assert.deepEqual((await list(app, search('dark', '&sort=-year'))).books, [...byYear].reverse())
      assert.deepEqual((await list(app, search('dark', '&sort=id'))).books, [...expected].sort((a, b) => a.id - b.id))
      // With author and year filters.
      assert.deepEqual(titles((await list(app, search('dark', '&author=guin'))).books), ['The Left Hand of Darkness'])
      assert.deepEqual(titles((await list(app, search('le guin', '&year_min=1970'))).books), ['The Dispossessed'])
      assert.deepEqual(titles((await list(app, search('darkness', '&title=noon'))).books), ['Darkness at Noon'])
      // count=true counts the matches, approximate ones included.
      const counted = await list(app, search('drakness', '&count=true&limit=1'))
      assert.equal(counted.response.headers['x-total-count'], '4')
      assert.equal((await list(app, search('dark', '&count=true'))).response.headers['x-total-count'], '5')
      // Paging: relevance order and a sort, every page size.
      for (const limit of [1, 2, 4, 5]) {
        assert.deepEqual((await pages(app, search('dark', `&limit=${limit}`))).flat(), expected)
        assert.deepEqual((await pages(app, search('dark', `&limit=${limit}&sort=-year`))).flat(), [...byYear].reverse())
        assert.deepEqual((await pages(app, search('drakness', `&limit=${limit}`))).flat(), referenceSearch('drakness', books))
      }
      const first = await list(app, search('dark', '&limit=2'))
      assert.match(first.link!, /^<\/books\?q=dark&limit=2&after=[A-Za-z0-9_-]+>; rel="next"$/)
      // A relevance cursor is refused by a sort and the reverse.
      const after = new URL(`http://x${first.link!.slice(1, first.link!.indexOf('>'))}`).searchParams.get('after')!
      await assertInvalid(app, search('dark', `&sort=title&after=${after}`))
      await assertInvalid(app, search('dark', '&after=3'))
    })
  })

  test('empty q is as if absent; more than 200 characters after trimming: 400 Invalid input', async () => {
    await withFreshApp(async (app) => {
      for (const book of library.slice(0, 3)) await create(app, book)
      const plain = await list(app, '/books')
      for (const q of ['', '   ', '\t\n', '""']) {
        const answer = await list(app, search(q))
        assert.equal(answer.response.body, plain.response.body, JSON.stringify(q))
      }
      const longest = 'é'.repeat(200)
      assert.deepEqual((await list(app, search(`  ${longest}  `))).books, [])
      await assertInvalid(app, search('a'.repeat(201)))
      await assertInvalid(app, search(`${'a'.repeat(100)} ${'b'.repeat(100)}`))
      // A repeated q is invalid, as any repeated parameter.
      const repeated = await app.inject({ url: '/books?q=a&q=b', headers: auth })
      assert.equal(repeated.statusCode, 400)
    })
  })
})
