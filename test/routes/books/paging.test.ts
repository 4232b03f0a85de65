import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { FastifyInstance } from 'fastify'
import { authHeaders } from '../../support/app.js'
import { createBook as create, type Book } from '../../support/books.js'
import { describeEachEngine } from '../../support/suite.js'

const auth = authHeaders()

async function list(app: FastifyInstance, url: string) {
  const response = await app.inject({ url, headers: auth })
  assert.equal(response.statusCode, 200, `${url}: ${response.body}`)
  const body = response.json()
  assert.equal(body.status, 200)
  assert.equal(body.message, 'Books retrieved successfully')
  return { books: body.data as Book[], link: response.headers.link as string | undefined, response }
}

/** The next page's URL from a Link header: `</books?…>; rel="next"` (RFC 8288). */
function nextUrl(link: string | undefined): string | undefined {
  if (link === undefined) return undefined
  const match = /^<([^>]+)>; rel="next"$/.exec(link)
  assert.ok(match, `malformed Link header: ${link}`)
  return match[1]
}

/** Follows the Link headers from `url` to the last page; returns every page. */
async function pages(app: FastifyInstance, url: string, between?: (page: number) => Promise<void>) {
  const result: Book[][] = []
  for (let next: string | undefined = url; next !== undefined; ) {
    const page = await list(app, next)
    result.push(page.books)
    next = nextUrl(page.link)
    if (next !== undefined) assert.match(next, /^\/books\?/)
    await between?.(result.length)
    assert.ok(result.length < 10_000, 'paging does not end')
  }
  return result
}

async function assertInvalid(app: FastifyInstance, url: string) {
  const response = await app.inject({ url, headers: auth })
  assert.equal(response.statusCode, 400, `${url}: ${response.body}`)
  assert.deepEqual(response.json(), { status: 400, message: 'Invalid input', data: null })
}

const fold = (text: string) => text.normalize('NFC').toLowerCase()
const sortKeys = {
  id: (book: Book) => book.id,
  title: (book: Book) => fold(book.title),
  author: (book: Book) => fold(book.author),
  year: (book: Book) => book.year
} as const

/** The order the service promises: by the sort key (code point order), ties by id, all reversed for `-`. */
function sorted(books: Book[], sort: string): Book[] {
  const descending = sort.startsWith('-')
  const key = sortKeys[sort.replace('-', '') as keyof typeof sortKeys]
  const compare = (a: Book, b: Book) => {
    const [x, y] = [key(a), key(b)]
    const byKey = x < y ? -1 : x > y ? 1 : 0
    return byKey !== 0 ? byKey : a.id - b.id
  }
  const result = [...books].sort(compare)
  return descending ? result.reverse() : result
}

const catalogue: Array<Omit<Book, 'id'>> = [
  { title: 'Dune', author: 'Frank Herbert', year: 1965 },
  { title: 'Dune Messiah', author: 'Frank Herbert', year: 1969 },
  { title: 'Ficciones', author: 'Jorge Luis Borges', year: 1944 },
  { title: 'El Aleph', author: 'Jorge Luis BORGES', year: 1949 },
  { title: 'Мастер и Маргарита', author: 'Михаил Булгаков', year: 1967 },
  { title: 'ÉTÉ à Paris', author: 'Émile Zola', year: 1965 },
  { title: '100% Pure', author: 'Under_Score', year: 2001 },
  { title: '1000 Pure', author: 'UnderXScore', year: 2001 },
  { title: 'dune (lowercase)', author: 'anon', year: 1965 },
  { title: 'Zebra', author: 'zed', year: -500 },
  { title: 'apple', author: 'Apple', year: 9999 },
  { title: 'Apple', author: 'apple', year: 1965 }
]

describeEachEngine('GET /books: paging, filters, sort, count', ({ withFreshApp }) => {
  test('unknown parameters are ignored: the contract list, unchanged', async () => {
    await withFreshApp(async (app) => {
      for (const book of catalogue) await create(app, book)
      const plain = await list(app, '/books')
      const unknown = await list(app, '/books?page=2&offset=5&per_page=1&q=dune')
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
  for (const query of invalid) {
    test(`400 Invalid input for ?${query.length > 40 ? `${query.slice(0, 40)}…` : query}`, async () => {
      await withFreshApp(async (app) => {
        await create(app, catalogue[0]!)
        await assertInvalid(app, `/books?${query}`)
      })
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
