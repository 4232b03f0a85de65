import { setImmediate as nextTurn } from 'node:timers/promises'
import { positionOf } from '../../book/cursor.js'
import type { BookFilter, BookQuery } from '../../book/query.js'
import { MIN_APPROXIMATE_LENGTH, Rank, rankOf, type Search } from '../../book/search.js'
import type { Book } from '../../book/schema.js'
import { LIST_PAGE_SIZE } from '../contracts/book-store.js'
import { StorageUnavailableError } from '../contracts/database.js'
import type { Engine } from '../contracts/engine.js'
import { booksByIdStatement, candidateCountStatement, fewCandidatesStatement, MAX_ID_SQL, tierStatement, titleRangeStatement, titleWordStartStatement, type BuiltQuery, type TierRead } from './list.js'
import { exactPieces, indexPieces, termPieces } from './search-pieces.js'

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

/** Default {@link SearchReadOptions.boundMs}: the service's query bound, 10 s (docs/contract.md "Search"). */
export const SEARCH_BOUND_MS = 10_000

/**
 * The time (`performance.now()`, ms) past which a search that started now is stopped: `boundMs`
 * from now.
 */
function deadlineIn(boundMs: number): number {
  return performance.now() + boundMs
}

/**
 * Stops a search of many statements once it has run to `deadline`, as PostgreSQL stops one
 * statement at the bound (docs/contract.md "Search": 503 with `Retry-After`). Checked before each
 * statement of a walk or a scan, so a statement is never cut here (the engine's own bound does that).
 *
 * @throws StorageUnavailableError with `retryAfterSeconds` the bound itself, in whole seconds.
 */
function stopPastDeadline(deadline: number, boundMs: number): void {
  if (performance.now() >= deadline) {
    throw new StorageUnavailableError(`a search ran past the query bound (${boundMs} ms)`, { retryAfterSeconds: Math.max(1, Math.ceil(boundMs / 1000)) })
  }
}

/**
 * Every book matching `query` (its search and its other filters), id ascending: the candidates
 * the index gives (`indexPieces`), each checked by `rankOf` (src/book/search.ts), so both engines
 * answer the same. Without index pieces the books are read by id in pages (a scan), stopped once
 * it has run `boundMs` ({@link stopPastDeadline}).
 */
async function* matchesOf(query: BookQuery, search: Search, read: ReadCandidates, boundMs: number): AsyncGenerator<Match> {
  const deadline = deadlineIn(boundMs)
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
    stopPastDeadline(deadline, boundMs)
    const page = await read(pieces, after, LIST_PAGE_SIZE)
    yield* check(page)
    if (page.length < LIST_PAGE_SIZE) return
    after = page[page.length - 1]!.id
    // A SQLite page is read on the event loop, and awaiting it gives only the microtasks a turn:
    // let other requests in between two pages, or a scan of every book holds the loop throughout.
    await nextTurn()
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
 * for a descending sort; only those after `query.after`; at most `query.limit`. A scan is stopped
 * once it has run `boundMs` (503: {@link stopPastDeadline}).
 */
export async function searchList(query: BookQuery, search: Search, read: ReadCandidates, boundMs = SEARCH_BOUND_MS): Promise<Book[]> {
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
  for await (const match of matchesOf(query, search, read, boundMs)) {
    const place = placeOf(match)
    if (after && compare(place, after) <= 0) continue
    kept.push({ place, book: match.book })
    // Keeps memory at about two pages for a limited query, whatever the number of matches.
    if (kept.length >= 2 * limit + LIST_PAGE_SIZE) trim()
  }
  trim()
  return kept.map((entry) => entry.book)
}

/** How many books match `query`'s search and other filters (`X-Total-Count`); a scan is stopped once it has run `boundMs`. */
export async function searchCount(query: BookQuery, search: Search, read: ReadCandidates, boundMs = SEARCH_BOUND_MS): Promise<number> {
  let total = 0
  for await (const match of matchesOf(query, search, read, boundMs)) if (match) total++
  return total
}

/** Runs one statement on the engine's connection and gives its rows. */
export type RunStatement = <Row>(statement: BuiltQuery) => Promise<Row[]>

/** How an engine reads a search in relevance order: its statements' runner and its window of ids. */
export interface RankedReads {
  engine: Engine
  run: RunStatement
  /** The candidates of a search read whole (by {@link searchList}) when there are few. */
  readCandidates: ReadCandidates
  /** How a search is read: {@link SearchReadOptions}, defaults filled in. */
  options: Required<SearchReadOptions>
  /**
   * Whether `title_word_starts` holds every book's keys (migration 0015; on PostgreSQL once its
   * online backfill is done): only then is the `titleWordStart` rank found from it.
   */
  wordStartsReady: () => Promise<boolean>
}

/** What decides how a search is read (both only change its cost, never its answer). */
export interface SearchReadOptions {
  /** Most candidates read whole and ranked in the service ({@link FEW_CANDIDATES} by default). */
  fewCandidates?: number
  /** How many ids one statement of a walk by id covers (its cost: about that many rows read at most). */
  windowSize?: number
  /** Most time a search of many statements runs, in ms, before it answers 503 ({@link SEARCH_BOUND_MS} by default). */
  boundMs?: number
}

/**
 * Most candidates (index pieces, other filters aside) a search reads whole and ranks in the
 * service; beyond, it reads rank by rank in id order. Also the most books of one `titleStart` rank
 * read from the title index and sorted by id. A walk by id then finds at least this many in every
 * million books read, so a page costs at most about `limit × books ÷` this many rows.
 */
export const FEW_CANDIDATES = 2000

/** Rows one statement of a rank's read asks for when the list has no limit, and the most a walk's later statements ask for when the page needs fewer. */
const READ_SIZE = 64

/** Where a walk of one rank starts and stops ({@link tierBooks}). */
interface TierWalk {
  /** The rank ({@link Rank}) walked. */
  tier: number
  /** Only books of a greater id. */
  afterId: number
  /** The highest id when the search started: the walk ends there. */
  lastId: number
  /** Books the page still needs (Infinity without a limit). */
  wanted: number
  /** When the search stops ({@link stopPastDeadline}). */
  deadline: number
}

/**
 * The books of a search in relevance order (rank, then id; docs/contract.md "Search"), after
 * `query.after` (a rank and an id), at most `query.limit`, reading about a page
 * (docs/search.md "How a page is read"):
 *
 * - when the search index finds at most `reads.options.fewCandidates` candidates, they are read whole and
 *   ranked here ({@link searchList});
 * - else, when it finds few books holding every term exactly, those are read whole and ranked
 *   here, and the `approximate` rank is walked (below);
 * - else rank by rank, from the cursor's rank and id: `exactTitle` from the `(title_search, id)`
 *   index in id order; `titleStart` from that index's range, and `titleWordStart` from the
 *   ranges of `title_word_starts` (migration 0015), when it holds at most `fewCandidates` books
 *   (sorted here by id), else like the others, walked by id in windows
 *   of `reads.options.windowSize` ids, each one statement whose conditions (`tierStatement`,
 *   storage/sql/list.ts) keep a superset of the rank's books. Every book read is checked by
 *   `rankOf` (src/book/search.ts), so both engines answer the same. The walk stops as soon as the
 *   page is full, and lets the event loop turn between statements.
 */
export async function* rankedSearch(query: BookQuery, search: Search, reads: RankedReads): AsyncGenerator<Book> {
  const deadline = deadlineIn(reads.options.boundMs)
  const limit = query.limit ?? Number.POSITIVE_INFINITY
  const pieces = indexPieces(search)
  if (pieces.length > 0) {
    const candidates = await fewCandidates(query, pieces, reads)
    if (candidates) {
      yield* await searchList(query, search, async () => candidates, reads.options.boundMs)
      return
    }
  }
  const [highest] = await reads.run<{ id: number | string | null }>({ sql: MAX_ID_SQL, parameters: [] })
  const lastId = Number(highest?.id ?? 0)
  const approximable = search.terms.some((term) => !term.quoted && [...term.text].length >= MIN_APPROXIMATE_LENGTH)
  const firstTier = query.after ? (query.after.key as number) : Rank.exactTitle
  const firstId = query.after?.id ?? 0
  let given = 0
  const exact = firstTier < Rank.approximate ? await fewExactMatches(query, search, reads) : undefined
  if (exact) {
    for (const match of exact) {
      if (match.rank < firstTier || (match.rank === firstTier && match.book.id <= firstId)) continue
      yield match.book
      if (++given >= limit) return
    }
  }
  for (let tier = exact ? Rank.approximate : firstTier; tier <= Rank.approximate; tier++) {
    if (tier === Rank.approximate && !approximable) break
    const afterId = tier === firstTier ? firstId : 0
    for await (const book of tierBooks(query, search, reads, { tier, afterId, lastId, wanted: limit - given, deadline })) {
      yield book
      if (++given >= limit) return
    }
  }
}

/**
 * The books the search index finds for `pieces` that match `query`'s other filters, id ascending,
 * when the index finds at most `reads.options.fewCandidates` (other filters aside); else undefined.
 * Without other filters one index scan both tells and finds their ids ({@link fewCandidatesStatement}),
 * and the books are read by id (the rows of a broad search are never read here); with
 * them the candidates are counted without the filters first, so that a selective filter never
 * makes a broad search read every book through the index, then read with them.
 */
async function fewCandidates(query: BookQuery, pieces: string[][][], reads: RankedReads): Promise<Book[] | undefined> {
  const few = reads.options.fewCandidates
  if (!hasOtherFilters(query)) {
    const found = await reads.run<{ id: number | string }>(await fewCandidatesStatement(reads.engine, pieces, few + 1))
    if (found.length > few) return undefined
    return found.length === 0 ? [] : reads.run<Book>(booksByIdStatement(reads.engine, found.map((row) => Number(row.id))))
  }
  const [counted] = await reads.run<{ total: number | string }>(await candidateCountStatement(reads.engine, pieces, few + 1))
  return Number(counted!.total) <= few ? reads.readCandidates(pieces) : undefined
}

/** Every filter of a list besides its search: a record, so that a filter added to `BookFilter` must be named here. */
const OTHER_FILTERS: Record<Exclude<keyof BookFilter, 'search'>, true> = { title: true, author: true, year: true, yearMin: true, yearMax: true }

/** Whether `query` filters by anything besides its search ({@link OTHER_FILTERS}). */
function hasOtherFilters(query: BookQuery): boolean {
  return Object.keys(OTHER_FILTERS).some((filter) => query[filter as keyof typeof OTHER_FILTERS] !== undefined)
}

/**
 * The books holding every term of `search` exactly (the ranks before `approximate`), in relevance
 * order, when the search index finds few books holding them (`exactPieces`,
 * storage/sql/search-pieces.ts); undefined when it finds more, or cannot look any term up.
 */
async function fewExactMatches(query: BookQuery, search: Search, reads: RankedReads): Promise<Match[] | undefined> {
  const pieces = exactPieces(search)
  if (!pieces) return undefined
  const candidates = await fewCandidates(query, pieces, reads)
  if (!candidates) return undefined
  const matches: Match[] = []
  for (const book of candidates) {
    const rank = rankOf(search, book.title, book.author)
    if (rank !== undefined && rank < Rank.approximate) matches.push({ book, rank })
  }
  return matches.sort((a, b) => a.rank - b.rank || a.book.id - b.book.id)
}

/**
 * The books of rank `walk.tier` for `search`, id ascending, after `walk.afterId` (see
 * {@link rankedSearch}); stopped at `walk.deadline` ({@link stopPastDeadline}).
 */
async function* tierBooks(query: BookQuery, search: Search, reads: RankedReads, walk: TierWalk): AsyncGenerator<Book> {
  const { tier, afterId, lastId, deadline } = walk
  let wanted = walk.wanted
  let statements = 0
  // Rows one statement asks for: what the page still needs (READ_SIZE without a limit), so that a
  // statement of a sparse rank stops reading its window once it has them; at least 1, 2, 4… rows
  // in the walk's first, second, third… statement, up to READ_SIZE, so that a rank whose
  // conditions keep many books of other ranks is not read a row at a time.
  const sizeNow = () => (Number.isFinite(wanted) ? Math.max(wanted, Math.min(READ_SIZE, 2 ** statements++)) : READ_SIZE)
  const ofTier = (book: Book) => {
    if (rankOf(search, book.title, book.author) !== tier) return false
    wanted--
    return true
  }
  const read = async (at: TierRead) => {
    stopPastDeadline(deadline, reads.options.boundMs)
    return reads.run<Book>(await tierStatement(reads.engine, query, search, at, termPieces))
  }
  if (tier === Rank.exactTitle) {
    for (let after = afterId; ; ) {
      const size = sizeNow()
      const books = await read({ tier, afterId: after, size })
      yield* books.filter(ofTier)
      if (books.length < size) return
      after = books.at(-1)!.id
    }
  }
  // A rank an index finds without a walk: its range read whole when it holds few books, sorted here by id.
  const indexed =
    tier === Rank.titleStart ? titleRangeStatement : tier === Rank.titleWordStart && (await reads.wordStartsReady()) ? titleWordStartStatement : undefined
  if (indexed) {
    const few = reads.options.fewCandidates
    const counting = await indexed(reads.engine, query, search, few + 1, true)
    const [counted] = counting ? await reads.run<{ total: number | string }>(counting) : [{ total: Number.POSITIVE_INFINITY }]
    const total = Number(counted!.total)
    if (total === 0) return
    if (total <= few) {
      const books = await reads.run<Book>((await indexed(reads.engine, query, search, few + 1, false))!)
      yield* books.filter((book) => book.id > afterId && ofTier(book)).sort((a, b) => a.id - b.id)
      return
    }
  }
  for (let after = afterId; after < lastId; ) {
    const throughId = Math.min(after + reads.options.windowSize, lastId)
    const size = sizeNow()
    const books = await read({ tier, afterId: after, throughId, size })
    yield* books.filter(ofTier)
    after = books.length === size ? books.at(-1)!.id : throughId
    // A SQLite statement runs on the event loop: let other requests in between two.
    await nextTurn()
  }
}
