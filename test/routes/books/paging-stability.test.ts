import assert from 'node:assert/strict'
import { test } from 'node:test'
import { createBook as create, type Book } from '../../support/books.js'
import { assertInvalid, auth, catalogue, list, pages, sorted } from '../../support/list-pages.js'
import { describeEachEngine } from '../../support/suite.js'

describeEachEngine('GET /books: Link URLs, stable paging under writes, invalid parameters', ({ app, withFreshApp }) => {
  test('the Link URL keeps the filters, encoded, and following it works', async () => {
    await withFreshApp(async (app) => {
      const books = []
      for (let i = 0; i < 5; i++) books.push(await create(app, { title: `a b&c=d+é #${i}`, author: 'Q', year: 1 }))
      await create(app, { title: 'other', author: 'Q', year: 1 })
      const url = `/books?title=${encodeURIComponent('B&C=D+É')}&sort=-title&limit=2&count=true&ignored=1`
      const first = await list(app, url)
      assert.doesNotMatch(first.link!, /ignored/)
      const all = await pages(app, url)
      assert.deepEqual(all.flat(), sorted(books, '-title'))
    })
  })

  for (const sort of ['id', '-id', 'title', '-year']) {
    test(`paging with sort=${sort} stays stable under inserts and deletes between pages: no book twice, none skipped`, async () => {
      await withFreshApp(async (app) => {
        const initial: Book[] = []
        for (let i = 0; i < 30; i++) initial.push(await create(app, { title: `S${(i * 7) % 30}`, author: 'P', year: i % 4 }))
        const deleted = new Set<number>()
        let round = 0
        const seen = (
          await pages(app, `/books?sort=${encodeURIComponent(sort)}&limit=4&author=p`, async () => {
            // Between pages: delete a book (seen or not yet), and insert two (before and after the cursor).
            round++
            const victim = initial[(round * 11) % initial.length]!
            if (!deleted.has(victim.id)) {
              await app.inject({ method: 'DELETE', url: `/book/${victim.id}`, headers: auth })
              deleted.add(victim.id)
            }
            await create(app, { title: `S${round}`, author: 'P', year: round % 4 })
            await create(app, { title: `new ${round}`, author: 'P', year: 3 })
          })
        ).flat()
        assert.ok(deleted.size >= 5)
        const ids = seen.map((book) => book.id)
        assert.equal(new Set(ids).size, ids.length, 'a book appeared twice')
        // Every book that existed throughout and was never deleted is seen, and pages are in order.
        const seenIds = new Set(ids)
        for (const book of initial.filter((book) => !deleted.has(book.id))) {
          assert.ok(seenIds.has(book.id), `book ${book.id} skipped`)
        }
        assert.deepEqual(seen, sorted(seen, sort), 'pages out of order')
      })
    })
  }

  const invalid = [
    'limit=0', 'limit=1001', 'limit=-1', 'limit=abc', 'limit=1.5', 'limit=', 'limit=10000', 'limit=1&limit=2',
    'after=abc', 'after=-1', 'after=1.5', 'after=99999999999999999', 'after=', 'after=1e3',
    'sort=title&after=5', 'sort=title&after=bm90LWpzb24', 'sort=year&after=WyJ0aXRsZSIsImEiLDFd',
    'sort=-title&after=WyJ0aXRsZSIsImEiLDFd', 'sort=year&after=WyJ5ZWFyIiwiYSIsMV0',
    'sort=name', 'sort=', 'sort=--id', 'sort=ID', 'sort=id,title',
    'year=abc', 'year=19a5', 'year=10000', 'year=1.5', 'year=', 'year_min=x', 'year_max=1e3', 'year_max=+5',
    'count=yes', 'count=TRUE', 'count=1', 'count=',
    `title=${'x'.repeat(501)}`, `author=${'y'.repeat(501)}`, 'title=a&title=b'
  ]
  // A refused query changes nothing, so these share the suite's app (a store with at least one
  // book) rather than each making a fresh store: on PostgreSQL a fresh one is a database of its own.
  for (const query of invalid) {
    test(`400 Invalid input for ?${query.length > 40 ? `${query.slice(0, 40)}…` : query}`, async () => {
      await create(app(), catalogue[0]!)
      await assertInvalid(app(), `/books?${query}`)
    })
  }

  test('a cursor of the sort it was made for is valid (year)', async () => {
    await withFreshApp(async (app) => {
      const books = []
      for (const year of [3, 1, 2]) books.push(await create(app, { title: 'x', author: 'y', year }))
      const cursor = Buffer.from(JSON.stringify(['year', 1, books[1]!.id])).toString('base64url')
      assert.deepEqual((await list(app, `/books?sort=year&after=${cursor}`)).books.map((book) => book.year), [2, 3])
    })
  })

  test('authentication comes before parameter validation', async () => {
    await withFreshApp(async (app) => {
      const response = await app.inject({ url: '/books?limit=0' })
      assert.equal(response.statusCode, 401)
      assert.deepEqual(response.json(), { status: 401, message: 'Authorization token required', data: null })
    })
  })
})
