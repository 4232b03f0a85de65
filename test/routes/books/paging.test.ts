import assert from 'node:assert/strict'
import { test } from 'node:test'
import { createBook as create, type Book } from '../../support/books.js'
import { auth, catalogue, list, pages, sorted } from '../../support/list-pages.js'
import { describeEachEngine } from '../../support/suite.js'

describeEachEngine('GET /books: paging, filters, sort, count', ({ withFreshApp }) => {
  test('unknown parameters are ignored: the contract list, unchanged', async () => {
    await withFreshApp(async (app) => {
      for (const book of catalogue) await create(app, book)
      const plain = await list(app, '/books')
      const unknown = await list(app, '/books?page=2&offset=5&per_page=1&search=dune')
      assert.equal(unknown.response.body, plain.response.body)
      assert.equal(plain.link, undefined)
      assert.equal(plain.response.headers['x-total-count'], undefined)
      assert.deepEqual(plain.books.map((book) => book.id), [...plain.books.map((book) => book.id)].sort((a, b) => a - b))
    })
  })

  test('limit pages by id; Link carries the next page; the last page has no Link', async () => {
    await withFreshApp(async (app) => {
      const books = []
      for (let i = 0; i < 7; i++) books.push(await create(app, { title: `T${i}`, author: 'A', year: 2000 + i }))
      const first = await list(app, '/books?limit=3')
      assert.deepEqual(first.books, books.slice(0, 3))
      assert.equal(first.link, `</books?limit=3&after=${books[2]!.id}>; rel="next"`)
      const all = await pages(app, '/books?limit=3')
      assert.deepEqual(all, [books.slice(0, 3), books.slice(3, 6), books.slice(6)])
      // Exactly a multiple of the page size: no Link after the last full page.
      const exact = await pages(app, '/books?limit=7')
      assert.deepEqual(exact, [books])
      assert.deepEqual((await list(app, `/books?limit=1000`)).books, books)
      assert.deepEqual((await list(app, '/books?limit=1')).books, books.slice(0, 1))
    })
  })

  test('after: books with a greater id (a smaller one for -id); without limit, all of them', async () => {
    await withFreshApp(async (app) => {
      const books = []
      for (let i = 0; i < 5; i++) books.push(await create(app, { title: `T${i}`, author: 'A', year: 2000 }))
      const middle = books[2]!.id
      assert.deepEqual((await list(app, `/books?after=${middle}`)).books, books.slice(3))
      assert.deepEqual((await list(app, `/books?after=${middle}&sort=-id`)).books, books.slice(0, 2).reverse())
      assert.deepEqual((await list(app, '/books?after=0')).books, books)
      // A deleted id is still a valid position.
      await app.inject({ method: 'DELETE', url: `/book/${middle}`, headers: auth })
      assert.deepEqual((await list(app, `/books?after=${middle}&limit=1`)).books, books.slice(3, 4))
      assert.deepEqual((await list(app, `/books?after=${books[4]!.id}`)).books, [])
    })
  })

  for (const sort of ['id', '-id', 'title', '-title', 'author', '-author', 'year', '-year']) {
    test(`following Link pages with sort=${sort} yields the whole sorted list once`, async () => {
      await withFreshApp(async (app) => {
        const books = []
        for (const book of [...catalogue, ...catalogue]) books.push(await create(app, book))
        const expected = sorted(books, sort)
        assert.deepEqual((await list(app, `/books?sort=${sort}`)).books, expected)
        for (const limit of [1, 2, 5, 24, 25]) {
          const all = await pages(app, `/books?sort=${encodeURIComponent(sort)}&limit=${limit}`)
          assert.ok(all.every((page) => page.length <= limit && page.length > 0))
          assert.deepEqual(all.flat(), expected, `limit=${limit}`)
        }
      })
    })
  }

  test('year bounds with a year sort: paging by Link equals the filtered sorted list (both directions)', async () => {
    await withFreshApp(async (app) => {
      const books = []
      for (let i = 0; i < 40; i++) books.push(await create(app, { title: `Y${i}`, author: 'A', year: 1990 + (i % 7) }))
      for (const [query, keep] of [
        ['year_min=1992&year_max=1994', (book: Book) => book.year >= 1992 && book.year <= 1994],
        ['year_min=1995', (book: Book) => book.year >= 1995],
        ['year_max=1991', (book: Book) => book.year <= 1991],
        ['year=1993', (book: Book) => book.year === 1993]
      ] as const) {
        for (const sort of ['year', '-year']) {
          const all = await pages(app, `/books?${query}&sort=${sort}&limit=3`)
          assert.deepEqual(all.flat(), sorted(books.filter(keep), sort), `${query} sort=${sort}`)
        }
      }
      // A crafted cursor outside the bounds: the bounds still hold.
      const below = Buffer.from(JSON.stringify(['year', 1900, 1])).toString('base64url')
      assert.deepEqual(
        (await list(app, `/books?sort=year&year_min=1995&after=${below}`)).books,
        sorted(books.filter((book) => book.year >= 1995), 'year')
      )
      const above = Buffer.from(JSON.stringify(['-year', 2100, 1])).toString('base64url')
      assert.deepEqual(
        (await list(app, `/books?sort=-year&year_max=1991&after=${above}`)).books,
        sorted(books.filter((book) => book.year <= 1991), '-year')
      )
    })
  })

  test('sort ties are broken by id: ascending, and descending for a - sort', async () => {
    await withFreshApp(async (app) => {
      const same = []
      for (let i = 0; i < 6; i++) same.push(await create(app, { title: 'Same', author: 'Same', year: 1999 }))
      const ids = same.map((book) => book.id)
      for (const field of ['title', 'author', 'year']) {
        assert.deepEqual((await pages(app, `/books?sort=${field}&limit=4`)).flat().map((book) => book.id), ids)
        assert.deepEqual((await pages(app, `/books?sort=-${field}&limit=4`)).flat().map((book) => book.id), [...ids].reverse())
      }
    })
  })

  test('title and author: case-insensitive substring, Unicode included', async () => {
    await withFreshApp(async (app) => {
      const books = []
      for (const book of catalogue) books.push(await create(app, book))
      const titles = async (url: string) => (await list(app, url)).books.map((book) => book.title)
      assert.deepEqual(await titles('/books?title=DUNE'), ['Dune', 'Dune Messiah', 'dune (lowercase)'])
      assert.deepEqual(await titles('/books?title=messiah'), ['Dune Messiah'])
      assert.deepEqual(await titles(`/books?title=${encodeURIComponent('мастер')}`), ['Мастер и Маргарита'])
      assert.deepEqual(await titles(`/books?title=${encodeURIComponent('été À')}`), ['ÉTÉ à Paris'])
      assert.deepEqual(await titles(`/books?author=${encodeURIComponent('БУЛГАКОВ')}`), ['Мастер и Маргарита'])
      assert.deepEqual(await titles('/books?author=borges'), ['Ficciones', 'El Aleph'])
      assert.deepEqual(await titles('/books?author=jorge+luis'), ['Ficciones', 'El Aleph'])
      assert.deepEqual(await titles('/books?title=nothing-like-this'), [])
      assert.deepEqual((await titles('/books?title=')).length, catalogue.length)
    })
  })

  test('% and _ in title/author are literal characters, not wildcards', async () => {
    await withFreshApp(async (app) => {
      for (const book of catalogue) await create(app, book)
      const titles = async (url: string) => (await list(app, url)).books.map((book) => book.title)
      assert.deepEqual(await titles('/books?title=0%25'), ['100% Pure'])
      assert.deepEqual(await titles('/books?title=%25'), ['100% Pure'])
      assert.deepEqual(await titles('/books?author=r_s'), ['100% Pure'])
      assert.deepEqual(await titles('/books?author=_'), ['100% Pure'])
      assert.deepEqual(await titles('/books?title=!'), [])
      assert.deepEqual(await titles(`/books?title=${encodeURIComponent('\\')}`), [])
    })
  })

  test('year exact and inclusive range, combined with the other filters', async () => {
    await withFreshApp(async (app) => {
      for (const book of catalogue) await create(app, book)
      const titles = async (url: string) => (await list(app, url)).books.map((book) => book.title)
      assert.deepEqual(await titles('/books?year=1965'), ['Dune', 'ÉTÉ à Paris', 'dune (lowercase)', 'Apple'])
      assert.deepEqual(await titles('/books?year_min=1967&year_max=1969'), ['Dune Messiah', 'Мастер и Маргарита'])
      assert.deepEqual(await titles('/books?year_min=2001'), ['100% Pure', '1000 Pure', 'apple'])
      assert.deepEqual(await titles('/books?year_max=1944'), ['Ficciones', 'Zebra'])
      assert.deepEqual(await titles('/books?year=-500'), ['Zebra'])
      assert.deepEqual(await titles('/books?year_min=1970&year_max=1960'), [])
      assert.deepEqual(await titles('/books?year=1965&title=dune'), ['Dune', 'dune (lowercase)'])
      assert.deepEqual(await titles('/books?year_min=1900&author=herbert&sort=-year'), ['Dune Messiah', 'Dune'])
      assert.deepEqual(await titles('/books?year=1965&year_min=1966'), [])
    })
  })

  test('count=true sends X-Total-Count of the filtered list (ignoring limit and after); otherwise none', async () => {
    await withFreshApp(async (app) => {
      const books = []
      for (const book of catalogue) books.push(await create(app, book))
      const counted = await list(app, '/books?count=true')
      assert.equal(counted.response.headers['x-total-count'], String(catalogue.length))
      const filtered = await list(app, `/books?count=true&year=1965&limit=1&after=${books[0]!.id}`)
      assert.equal(filtered.response.headers['x-total-count'], '4')
      assert.equal(filtered.books.length, 1)
      assert.match(filtered.link ?? '', /count=true/)
      assert.equal((await list(app, '/books?limit=2')).response.headers['x-total-count'], undefined)
      assert.equal((await list(app, '/books?count=false')).response.headers['x-total-count'], undefined)
      assert.equal((await list(app, '/books?title=zzz&count=true')).response.headers['x-total-count'], '0')
    })
  })
})
