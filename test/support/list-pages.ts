import assert from 'node:assert/strict'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { authHeaders } from './app.js'
import type { Book } from './books.js'

/** What the GET /books paging tests share: listing, following Link headers, the promised order. */

export const auth = authHeaders()

/** GET `url` (authenticated): asserts a 200 list envelope; its books, `Link` header and response. */
export async function list(app: FastifyInstance, url: string) {
  const response = await app.inject({ url, headers: auth })
  assert.equal(response.statusCode, 200, `${url}: ${response.body}`)
  const body = response.json()
  assert.equal(body.status, 200)
  assert.equal(body.message, 'Books retrieved successfully')
  return { books: body.data as Book[], link: response.headers.link as string | undefined, response }
}

/**
 * Sends every one of `urls` (each a read that may be heavy) and `GET /book/1` at once, each to
 * answer 200 and pass `check` when given: the order they finished in, `point read` for the point
 * read and `heavy <i>` for `urls[i]`. The bounded-reads tests assert the point read comes first.
 */
export async function finishingOrder(
  app: FastifyInstance,
  urls: string[],
  check: (url: string, response: LightMyRequestResponse) => void = () => {}
): Promise<string[]> {
  const order: string[] = []
  const heavy = urls.map((url, index) =>
    app.inject({ url, headers: auth }).then((response) => {
      assert.equal(response.statusCode, 200, `${url}: ${response.body} ${String(response.headers['retry-after'])}`)
      check(url, response)
      order.push(`heavy ${index}`)
    })
  )
  const point = app.inject({ url: '/book/1', headers: auth }).then((response) => {
    assert.equal(response.statusCode, 200, response.body)
    order.push('point read')
  })
  await Promise.all([...heavy, point])
  return order
}

/** The next page's URL from a Link header: `</books?…>; rel="next"` (RFC 8288). */
export function nextUrl(link: string | undefined): string | undefined {
  if (link === undefined) return undefined
  const match = /^<([^>]+)>; rel="next"$/.exec(link)
  assert.ok(match, `malformed Link header: ${link}`)
  return match[1]
}

/** Follows the Link headers from `url` to the last page; returns every page. */
export async function pages(app: FastifyInstance, url: string, between?: (page: number) => Promise<void>) {
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

/** Asserts GET `url` answers 400 `Invalid input` in the envelope. */
export async function assertInvalid(app: FastifyInstance, url: string) {
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
export function sorted(books: Book[], sort: string): Book[] {
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

/** Twelve books whose titles, authors and years exercise case folding, Unicode, `%`/`_` and ties. */
export const catalogue: Array<Omit<Book, 'id'>> = [
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
