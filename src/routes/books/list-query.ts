import Type, { type Static } from 'typebox'
import { HttpError } from '../../http/errors/http-error.js'
import { Messages } from '../../http/messages.js'
import { decodeCursor, decodeRelevanceCursor, encodeCursor, encodeRelevanceCursor } from '../../book/cursor.js'
import { MAX_SEARCH_LENGTH, parseSearch, relevanceOf, type Search } from '../../book/search.js'
import { parseDecimalId } from '../../book/id.js'
import { publishedAs } from '../../book/parameter-types.js'
import type { BookQuery, SortField } from '../../book/query.js'
import type { Book } from '../../book/schema.js'
import type { BookReads } from '../../storage/contracts/read-replicas.js'

/** Largest page `limit` accepts. */
export const MAX_PAGE_SIZE = 1000

/** The `limit` values: 1 to {@link MAX_PAGE_SIZE} (1000) in decimal, without leading zeros (also the history's). */
export const LIMIT_PATTERN = '^([1-9][0-9]{0,2}|1000)$'
const YEAR_PATTERN = '^-?[0-9]{1,4}$'
/**
 * A free-text query value (`q`, `title`, `author`, a cursor `after`): anything but U+0000, 400
 * `Invalid input` otherwise (docs/contract.md "Search": a NUL in any query value). No stored text holds
 * one, and PostgreSQL refuses it in a text parameter. Also the history's `after`.
 */
export const QUERY_TEXT_PATTERN = '^[^\\u0000]*$'
const yearParameter = (description: string) =>
  publishedAs(Type.Optional(Type.String({ pattern: YEAR_PATTERN, description })), { type: 'integer', minimum: -9999, maximum: 9999 })

/** A page's `limit` (`GET /books`, a book's history): text of {@link LIMIT_PATTERN}, published as the integer 1 to 1000. */
export const limitParameter = () =>
  publishedAs(
    Type.Optional(Type.String({ pattern: LIMIT_PATTERN, description: `Page size, 1 to ${MAX_PAGE_SIZE}. Turns on the Link header.` })),
    { type: 'integer', minimum: 1, maximum: MAX_PAGE_SIZE }
  )
const textParameter = (description: string) => Type.Optional(Type.String({ maxLength: 500, pattern: QUERY_TEXT_PATTERN, description }))

/**
 * The optional query parameters of `GET /books` (docs/api.md "Large collections and concurrent edits"), as they arrive: strings, validated by
 * pattern (Ajv's type coercion is off), so the route answers 400 `Invalid input` for a bad value,
 * after authentication. A parameter given twice arrives as an array and is invalid too. Unknown
 * parameters are ignored. {@link parseListParameters} turns them into a {@link BookQuery}.
 */
export const ListParameters = Type.Object(
  {
    // Exactly 1 to 1000, written without leading zeros: the API document gives the real bounds.
    limit: limitParameter(),
    after: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 4096,
        pattern: QUERY_TEXT_PATTERN,
        description:
          'Start after this position: a book id when sorting by id (books with a greater id, or a smaller one ' +
          'for -id); for the other sorts the opaque cursor of the Link header.'
      })
    ),
    q: Type.Optional(
      Type.String({
        pattern: QUERY_TEXT_PATTERN,
        description:
          'Search (docs/search.md "Search"): books whose title or author contains every term, ignoring case and diacritics; ' +
          'terms split on white space, a double-quoted part is one term; an unquoted term of 5 or more characters also ' +
          'matches a word within one edit, ranked after exact matches. Without sort, in relevance order. Empty: ignored. ' +
          `At most ${MAX_SEARCH_LENGTH} characters after trimming. No NUL character (in any text parameter).`
      })
    ),
    title: textParameter('Books whose title contains this text, ignoring case.'),
    author: textParameter('Books whose author contains this text, ignoring case.'),
    year: yearParameter('Books of exactly this year.'),
    year_min: yearParameter('Books of this year or later.'),
    year_max: yearParameter('Books of this year or earlier.'),
    sort: Type.Optional(
      Type.String({
        pattern: '^-?(id|title|author|year)$',
        description: 'id (default), title, author or year; a leading - sorts descending. Ties are ordered by id.'
      })
    ),
    count: publishedAs(Type.Optional(Type.String({ pattern: '^(true|false)$', description: 'true adds the X-Total-Count header.' })), { type: 'boolean' })
  },
  { additionalProperties: true }
)
export type ListParameters = Static<typeof ListParameters>

/** The names of {@link ListParameters}, in the order the Link header writes them. */
const PARAMETER_NAMES = ['q', 'title', 'author', 'year', 'year_min', 'year_max', 'sort', 'count', 'limit'] as const

/** A parsed list request of `GET /books`: the store query, the page size asked for, and whether to count. */
export interface Listing {
  query: BookQuery
  /** The client's `limit`; the store is asked for one more to know whether a next page exists. */
  limit?: number
  count: boolean
  /** The parameters as the client sent them (known ones only), to build the next page's URL. */
  parameters: ListParameters
}

const invalidInput = () => new HttpError(400, Messages.invalidInput)

/**
 * Turns the validated query parameters of `GET /books` into a store query.
 *
 * @returns undefined when no list parameter is present: the plain contract list (all books, by id).
 * @throws HttpError 400 `Invalid input` for values the patterns cannot rule out: `limit` outside
 *   1..1000, a `q` longer than 200 characters after trimming, an `after` that is not an id (id sorts) or not a cursor of this sort (other sorts).
 */
export function parseListParameters(raw: ListParameters): Listing | undefined {
  const parameters: ListParameters = {}
  for (const name of [...PARAMETER_NAMES, 'after'] as const) {
    if (raw[name] !== undefined) parameters[name] = raw[name]
  }
  let search: Search | undefined
  if (parameters.q !== undefined) {
    try {
      search = parseSearch(parameters.q)
    } catch {
      throw invalidInput()
    }
    // An empty search (white space, nothing but quotes) is as if absent (docs/contract.md "Search").
    if (!search) delete parameters.q
  }
  if (Object.keys(parameters).length === 0) return undefined

  const sort = parameters.sort ?? 'id'
  const field = sort.replace(/^-/, '') as SortField
  const relevance = search !== undefined && parameters.sort === undefined
  const query: BookQuery = relevance ? { search } : { sort: field, descending: sort.startsWith('-') }
  if (search && !relevance) query.search = search
  if (parameters.title !== undefined) query.title = parameters.title
  if (parameters.author !== undefined) query.author = parameters.author
  if (parameters.year !== undefined) query.year = Number(parameters.year)
  if (parameters.year_min !== undefined) query.yearMin = Number(parameters.year_min)
  if (parameters.year_max !== undefined) query.yearMax = Number(parameters.year_max)

  let limit: number | undefined
  if (parameters.limit !== undefined) {
    limit = Number(parameters.limit)
    if (limit < 1 || limit > MAX_PAGE_SIZE) throw invalidInput()
  }
  if (parameters.after !== undefined) {
    if (relevance) {
      const position = decodeRelevanceCursor(parameters.after)
      if (!position) throw invalidInput()
      query.after = position
    } else if (field === 'id') {
      const id = parseDecimalId(parameters.after)
      if (id === undefined) throw invalidInput()
      query.after = { key: id, id }
    } else {
      const position = decodeCursor(parameters.after, sort, field)
      if (!position) throw invalidInput()
      query.after = position
    }
  }
  return { query, limit, count: parameters.count === 'true', parameters }
}

/** One answer of a list request: the page, the next page's URL when more follow, the total when asked. */
export interface ListPage {
  books: Book[]
  /** Relative URL (`/books?…`) of the next page: only when `limit` was given and more books follow. */
  next?: string
  /** How many books match the filters (ignoring `limit` and `after`): only when `count=true`. */
  total?: number
}

/**
 * Reads one page of books for `request` from `books` (docs/api.md "Large collections and concurrent edits"):
 * asks for `limit + 1` books so that the extra one tells whether a next page exists, without
 * counting. The next URL keeps the client's parameters and sets `after` to the last book's position.
 */
export async function readListPage(books: BookReads, request: Listing): Promise<ListPage> {
  const { query, limit, parameters } = request
  const read: Book[] = []
  for await (const book of books.list(limit === undefined ? query : { ...query, limit: limit + 1 })) read.push(book)
  const page: ListPage = { books: read }
  if (limit !== undefined && read.length > limit) {
    read.length = limit
    const last = read[limit - 1]!
    const sort = parameters.sort ?? 'id'
    const field = query.sort ?? 'id'
    const next = new URLSearchParams()
    for (const name of PARAMETER_NAMES) {
      const value = parameters[name]
      if (value !== undefined) next.set(name, value)
    }
    const after =
      query.search && query.sort === undefined
        ? encodeRelevanceCursor(relevanceOf(query.search, last), last.id)
        : field === 'id'
          ? String(last.id)
          : encodeCursor(sort, field, last)
    next.set('after', after)
    page.next = `/books?${next.toString()}`
  }
  if (request.count) page.total = await books.count(query)
  return page
}
