import { positionOf } from '../../book/cursor.js'
import type { BookQuery } from '../../book/query.js'
import { rankOf, type Search } from '../../book/search.js'
import type { Book } from '../../book/schema.js'
import { LIST_PAGE_SIZE } from '../contracts/book-store.js'
import { indexPieces } from './search-pieces.js'

/**
 * Reads search candidates: with index pieces, every candidate at once (one statement, its rows
 * taken whole); without, the books by id, `size` after `afterId`.
 */
export type ReadCandidates = (pieces: string[][][], afterId?: number, size?: number) => Promise<Book[]>

/** A book that matches a search, with its relevance rank. */
interface Match {
  book: Book
  rank: number
}

/**
 * Every book matching `query` (its search and its other filters), id ascending: the candidates
 * the index gives (`indexPieces`), each checked by `rankOf` (src/book/search.ts), so both engines
 * answer the same. Without index pieces the books are read by id in pages (a scan).
 */
async function* matchesOf(query: BookQuery, search: Search, read: ReadCandidates): AsyncGenerator<Match> {
  const pieces = indexPieces(search)
  const check = function* (books: Book[]) {
    for (const book of books) {
      const rank = rankOf(search, book.title, book.author)
      if (rank !== undefined) yield { book, rank }
    }
  }
  if (pieces.length > 0) {
    yield* check(await read(pieces))
    return
  }
  for (let after = 0; ; ) {
    const page = await read(pieces, after, LIST_PAGE_SIZE)
    yield* check(page)
    if (page.length < LIST_PAGE_SIZE) return
    after = page[page.length - 1]!.id
  }
}

/** A match's place in the order: its sort key (rank, UTF-8 bytes of a folded text, year or id), then its id. */
interface Place {
  key: number | Buffer
  id: number
}

function compareKeys(a: number | Buffer, b: number | Buffer): number {
  // Folded texts compare as SQLite's BINARY and PostgreSQL's "C" collation do: by UTF-8 bytes.
  return typeof a === 'number' ? a - (b as number) : Buffer.compare(a, b as Buffer)
}

/**
 * The books of a query with a search (docs/search.md "Search"): in relevance order (rank, then id) without
 * `sort`, else in the sort's order (as every list: folded text, year or id, then id), both reversed
 * for a descending sort; only those after `query.after`; at most `query.limit`.
 */
export async function searchList(query: BookQuery, search: Search, read: ReadCandidates): Promise<Book[]> {
  const relevance = query.sort === undefined
  const placeOf = (match: Match): Place => {
    if (relevance) return { key: match.rank, id: match.book.id }
    const { key, id } = positionOf(query.sort!, match.book)
    return { key: typeof key === 'string' ? Buffer.from(key) : key, id }
  }
  const direction = query.descending ? -1 : 1
  const compare = (a: Place, b: Place) => direction * (compareKeys(a.key, b.key) || a.id - b.id)
  const after = query.after && { key: typeof query.after.key === 'string' ? Buffer.from(query.after.key) : query.after.key, id: query.after.id }
  const limit = query.limit ?? Number.POSITIVE_INFINITY

  let kept: { place: Place; book: Book }[] = []
  const trim = () => {
    kept.sort((a, b) => compare(a.place, b.place))
    if (kept.length > limit) kept = kept.slice(0, limit)
  }
  for await (const match of matchesOf(query, search, read)) {
    const place = placeOf(match)
    if (after && compare(place, after) <= 0) continue
    kept.push({ place, book: match.book })
    // Keeps memory at about two pages for a limited query, whatever the number of matches.
    if (kept.length >= 2 * limit + LIST_PAGE_SIZE) trim()
  }
  trim()
  return kept.map((entry) => entry.book)
}

/** How many books match `query`'s search and other filters (`X-Total-Count`). */
export async function searchCount(query: BookQuery, search: Search, read: ReadCandidates): Promise<number> {
  let total = 0
  for await (const match of matchesOf(query, search, read)) if (match) total++
  return total
}
