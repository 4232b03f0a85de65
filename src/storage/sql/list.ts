import type { DatabaseIntrospector, DialectAdapter, ExpressionBuilder, Kysely, QueryCompiler, sql as Sql } from 'kysely'
import { foldText } from '../../book/fold.js'
import type { BookFilter, BookQuery, SortField } from '../../book/query.js'
import { MIN_APPROXIMATE_LENGTH, Rank, type Search, type SearchTerm } from '../../book/search.js'
import type { Engine } from '../contracts/engine.js'
import { WORD_START_KEY_LENGTH } from '../schema/migrations/0015_title_word_starts.js'

/** The `books` table as the list queries see it (migrations 0001 and 0002). */
interface BooksTable {
  id: number
  title: string
  author: string
  year: number
  version: number
  title_folded: string
  author_folded: string
  /** The search forms (`searchForm`, src/book/search.ts) of the folded columns (migrations 0009, 0013). */
  title_search: string
  author_search: string
}
/** Where a word of a title's search form may start (migration 0015). */
interface TitleWordStartsTable {
  key: string
  book_id: number
}
interface Database {
  books: BooksTable
  title_word_starts: TitleWordStartsTable
}

/** One statement ready for the engine's driver: SQL text with placeholders, and their values. */
export interface BuiltQuery {
  sql: string
  parameters: readonly unknown[]
}

/** What the list queries need of Kysely: a query builder per engine, and its `sql` tag. */
interface QueryBuilders {
  builders: Record<Engine, Kysely<Database>>
  sql: typeof Sql
}

let queryBuilders: Promise<QueryBuilders> | undefined

/**
 * Kysely used only to write SQL (no connection): each engine's store runs the compiled text on
 * its own driver, so the list queries are built once for both engines. Imported on the first list
 * query with parameters, not at start-up: Kysely is ~260 modules (~100 ms of a cold start).
 */
function listQueryBuilders(): Promise<QueryBuilders> {
  queryBuilders ??= import('kysely').then((kysely) => {
    const builder = (dialect: { Adapter: new () => DialectAdapter; Introspector: new (db: Kysely<unknown>) => DatabaseIntrospector; Compiler: new () => QueryCompiler }) =>
      new kysely.Kysely<Database>({
        dialect: {
          createAdapter: () => new dialect.Adapter(),
          createDriver: () => new kysely.DummyDriver(),
          createIntrospector: (db) => new dialect.Introspector(db),
          createQueryCompiler: () => new dialect.Compiler()
        }
      })
    /**
     * SQLite's compiler, writing every bound value as `+?`. This SQLite has STAT4: once `ANALYZE`
     * has written `sqlite_stat4` (`SQLITE_CONTEXT_STATEMENTS`, sql/change-log-statements.ts), a
     * bare `?` compared with an indexed column, or a LIKE or GLOB pattern, marks the statement to
     * be planned again at every binding, from the value's samples: 1-7 ms for a search's
     * statement, whose search forms SQLite writes out at each mention; and with the values of a
     * broad term it planned a range of `(title_search, id)` as a scan. `+?` is the same value,
     * planned once (src/storage/sqlite/sqlite-search-reader.ts keeps it prepared).
     */
    class SqliteListCompiler extends kysely.SqliteQueryCompiler {
      protected override getCurrentParameterPlaceholder(): string {
        return '+?'
      }
    }
    const builders = {
      sqlite: builder({ Adapter: kysely.SqliteAdapter, Introspector: kysely.SqliteIntrospector, Compiler: SqliteListCompiler }),
      postgres: builder({ Adapter: kysely.PostgresAdapter, Introspector: kysely.PostgresIntrospector, Compiler: kysely.PostgresQueryCompiler })
    }
    return { builders, sql: kysely.sql }
  })
  return queryBuilders
}

/** The column each sort orders by (then by id). */
const SORT_COLUMNS = {
  id: 'id',
  title: 'title_folded',
  author: 'author_folded',
  year: 'year'
} as const satisfies Record<SortField, keyof BooksTable>

/** `text` with its `%`, `_` and `!` escaped for `LIKE … ESCAPE '!'`. */
function likeEscaped(text: string): string {
  return text.replace(/[!%_]/g, (character) => `!${character}`)
}

/** The LIKE pattern "contains `term`". */
function likeContaining(term: string): string {
  return `%${likeEscaped(term)}%`
}

/** The WHERE conditions of `filter` (all must hold; none: always true). */
function filters(eb: ExpressionBuilder<Database, 'books'>, filter: BookFilter, sql: typeof Sql) {
  // Both sides are folded (the terms here, the columns when stored), so a plain (case-sensitive on PostgreSQL) LIKE matches the same way on
  // both engines. On PostgreSQL the folded columns use the "C" collation and have trigram indexes.
  const containing = (column: 'title_folded' | 'author_folded', term: string) =>
    sql<boolean>`${sql.ref(column)} LIKE ${likeContaining(term)} ESCAPE '!'`
  const conditions = []
  if (filter.title !== undefined) conditions.push(containing('title_folded', foldText(filter.title)))
  if (filter.author !== undefined) conditions.push(containing('author_folded', foldText(filter.author)))
  if (filter.year !== undefined) conditions.push(eb('year', '=', filter.year))
  if (filter.yearMin !== undefined) conditions.push(eb('year', '>=', filter.yearMin))
  if (filter.yearMax !== undefined) conditions.push(eb('year', '<=', filter.yearMax))
  return eb.and(conditions)
}

/**
 * For a year sort with an `after` position, drops whichever of the year bound and the position is
 * implied by the other, so the `(year, id)` index is entered at the position itself: SQLite seeks on one lower
 * bound only, and would otherwise walk from `year_min` to the position (O(depth), not O(page)).
 */
function yearKeyset(query: BookQuery): { filter: BookFilter; after: BookQuery['after'] } {
  const { after } = query
  if (query.sort !== 'year' || !after) return { filter: query, after }
  const key = after.key as number
  const filter: BookFilter = { ...query }
  const bound = query.descending ? 'yearMax' : 'yearMin'
  const bounded = filter[bound]
  if (bounded !== undefined) {
    // Ascending: rows past (key, id) all have year >= key; if key < year_min, year >= year_min implies the position.
    const positionImplied = query.descending ? key > bounded : key < bounded
    if (positionImplied) return { filter, after: undefined }
    delete filter[bound]
  }
  return { filter, after }
}

/**
 * The SELECT of `BookStore.list` for `query` on `engine`: filtered, ordered by the sort
 * column then id (both ascending or both descending), keyset-started after `query.after` with one
 * row-value comparison `(column, id) > (key, id)` that the `(column, id)` index answers, so a page
 * costs O(limit) at any depth. Selects id, title, author, year.
 */
export async function listStatement(engine: Engine, query: BookQuery): Promise<BuiltQuery> {
  const { builders, sql } = await listQueryBuilders()
  const column = SORT_COLUMNS[query.sort ?? 'id']
  const direction = query.descending ? 'desc' : 'asc'
  const { filter, after } = yearKeyset(query)
  let select = builders[engine]
    .selectFrom('books')
    .select(['id', 'title', 'author', 'year'])
    .where((eb) => filters(eb, filter, sql))
  if (after) {
    const past = query.descending ? '<' : '>'
    select =
      column === 'id'
        ? select.where('id', past, after.id)
        : select.where((eb) => eb(eb.refTuple(column, 'id'), past, eb.tuple(after.key as never, after.id)))
  }
  if (column !== 'id') select = select.orderBy(column, direction)
  select = select.orderBy('id', direction)
  if (query.limit !== undefined) select = select.limit(query.limit)
  const { sql: text, parameters } = select.compile()
  return { sql: text, parameters }
}

/** The `SELECT count(*)` of `BookStore.count` for `filter` on `engine`, as column `total`. */
export async function countStatement(engine: Engine, filter: BookFilter): Promise<BuiltQuery> {
  const { builders, sql } = await listQueryBuilders()
  const { sql: text, parameters } = builders[engine]
    .selectFrom('books')
    .select((eb) => eb.fn.countAll<number>().as('total'))
    .where((eb) => filters(eb, filter, sql))
    .compile()
  return { sql: text, parameters }
}

/**
 * The SELECT of a search's candidates (docs/search.md "Search"): the books matching `query`'s other
 * filters that the search index finds for `pieces` (from `indexPieces`, storage/sql/search-pieces.ts:
 * for every group, every text of one of its alternatives in the title or the author, in search
 * form), by id. The
 * candidates are a superset of the matches; the caller checks each (`rankOf`, src/book/search.ts).
 *
 * SQLite asks the FTS5 trigram table `book_search` (migration 0009); PostgreSQL matches the
 * search-form columns `title_search` and `author_search` with LIKE, which their pg_trgm indexes
 * answer. Without groups (every term too short for trigrams) the statement reads
 * the books by id in pages: `afterId` and `size` set the page.
 */
export async function searchStatement(engine: Engine, query: BookQuery, pieces: readonly (readonly (readonly string[])[])[], afterId?: number, size?: number): Promise<BuiltQuery> {
  const { builders, sql } = await listQueryBuilders()
  let select = builders[engine]
    .selectFrom('books')
    .select(['id', 'title', 'author', 'year'])
    .where((eb) => filters(eb, query, sql))
  if (pieces.length > 0) {
    if (engine === 'sqlite') {
      select = select.where(sql<boolean>`id IN (SELECT rowid FROM book_search WHERE book_search MATCH ${ftsMatch(pieces)})`)
    } else {
      const containing = (piece: string) =>
        sql<boolean>`(title_search LIKE ${likeContaining(piece)} ESCAPE '!' OR author_search LIKE ${likeContaining(piece)} ESCAPE '!')`
      for (const alternatives of pieces) select = select.where((eb) => eb.or(alternatives.map((all) => eb.and(all.map(containing)))))
    }
  }
  if (afterId !== undefined) select = select.where('id', '>', afterId)
  select = select.orderBy('id', 'asc')
  if (size !== undefined) select = select.limit(size)
  const { sql: text, parameters } = select.compile()
  return { sql: text, parameters }
}

/** One read of one rank of a search in relevance order (docs/search.md "How a page is read"). */
export interface TierRead {
  /** The rank ({@link Rank}) whose books are read. */
  tier: number
  /** Only books of a greater id. */
  afterId: number
  /** Only books of this id or less: the window of a walk by id (absent: no upper bound). */
  throughId?: number
  /** At most this many rows. */
  size: number
}

/**
 * LIKE patterns (escaped for `ESCAPE '!'`) that a text holding a word within one edit of `term`
 * matches, one per edit (`withinOneEdit`, src/book/search.ts): the term with one character
 * replaced by `_` (any one character), one character removed, one `_` inserted between two of its
 * characters, or two neighbours swapped. An insertion at either end holds the term itself, which
 * the caller tests apart. A superset: the patterns do not look at word boundaries, and `rankOf`
 * checks every book read. Used where the search index has nothing to narrow a term by (a
 * five-character term), so that a walk by id keeps only the books that can be within one edit.
 */
function oneEditPatterns(term: string): string[] {
  const characters = [...term]
  // `ANY` stands for LIKE's `_`; the term's own characters are escaped (a `_` of the term included).
  const ANY = null
  const text = (parts: (string | null)[]) => parts.map((part) => (part === ANY ? '_' : likeEscaped(part))).join('')
  const patterns = new Set<string>()
  for (let i = 0; i < characters.length; i++) {
    patterns.add(text([...characters.slice(0, i), ANY, ...characters.slice(i + 1)]))
    patterns.add(text([...characters.slice(0, i), ...characters.slice(i + 1)]))
    if (i > 0) patterns.add(text([...characters.slice(0, i), ANY, ...characters.slice(i)]))
    if (i + 1 < characters.length) patterns.add(text([...characters.slice(0, i), characters[i + 1]!, characters[i]!, ...characters.slice(i + 2)]))
  }
  return [...patterns].map((pattern) => `%${pattern}%`)
}

/**
 * A pattern that a text in which `term` starts a word matches (`startsWord`, src/book/search.ts:
 * at the text's start, or after a character that is not a letter or digit), with the operator
 * that applies it: SQLite's GLOB, PostgreSQL's regular expression. A superset: every character
 * outside a-z and 0-9 counts as a word's boundary here (letters of other scripts too), and
 * `rankOf` checks every book read.
 */
function wordStartCondition(engine: Engine, sql: typeof Sql, term: string) {
  if (engine === 'sqlite') {
    const glob = term.replace(/[*?[]/g, (character) => `[${character}]`)
    return sql<boolean>`(title_search GLOB ${`${glob}*`} OR title_search GLOB ${`*[^0-9a-z]${glob}*`})`
  }
  const literal = term.replace(/[^\p{L}\p{N}\s]/gu, (character) => `\\${character}`)
  return sql<boolean>`title_search ~ ${`(^|[^0-9a-z])${literal}`}`
}

/**
 * The conditions a book of rank `tier` for `search` meets (a superset of them: each book read is
 * still checked by `rankOf`, src/book/search.ts), on the search forms `title_search` and
 * `author_search`:
 *
 * - every rank but `approximate` holds every term exactly (in the title or the author);
 * - `exactTitle`: the title is the text; `titleStart`: it starts with it, and is not it;
 *   `titleWordStart`: a term may start a word of the title ({@link wordStartCondition}), which does
 *   not start with the text; `inTitle`: a term is in the title, which does not start with the text;
 *   `authorOnly`: no term is in the title;
 * - `approximate`: some term is not held exactly, and every term is held exactly or, when it may
 *   match within one edit, has one alternative of its index pieces held (`termPieces`,
 *   storage/sql/search-pieces.ts; a term without pieces: one of its {@link oneEditPatterns}).
 */
function tierConditions(engine: Engine, eb: ExpressionBuilder<Database, 'books'>, sql: typeof Sql, search: Search, tier: number, pieces: (term: SearchTerm) => string[][] | undefined) {
  const like = (column: 'title_search' | 'author_search', pattern: string) => sql<boolean>`${sql.ref(column)} LIKE ${pattern} ESCAPE '!'`
  const held = (text: string) => eb.or([like('title_search', likeContaining(text)), like('author_search', likeContaining(text))])
  const exactly = eb.and(search.terms.map((term) => held(term.text)))
  const startsWithText = like('title_search', `${likeEscaped(search.text)}%`)
  const inTitle = search.terms.map((term) => like('title_search', likeContaining(term.text)))
  switch (tier) {
    case Rank.exactTitle:
      return eb.and([exactly, eb('title_search', '=', search.text)])
    case Rank.titleStart:
      return eb.and([exactly, startsWithText, eb('title_search', '<>', search.text)])
    case Rank.titleWordStart:
      return eb.and([exactly, eb.not(startsWithText), eb.or(search.terms.map((term) => wordStartCondition(engine, sql, term.text)))])
    case Rank.inTitle:
      return eb.and([exactly, eb.not(startsWithText), eb.or(inTitle)])
    case Rank.authorOnly:
      return eb.and([exactly, ...inTitle.map((condition) => eb.not(condition))])
    default: {
      const nearly = search.terms.map((term) => {
        if (term.quoted || [...term.text].length < MIN_APPROXIMATE_LENGTH) return held(term.text)
        const alternatives = pieces(term)
        if (alternatives === undefined) {
          const near = (column: 'title_search' | 'author_search') => oneEditPatterns(term.text).map((pattern) => like(column, pattern))
          return eb.or([held(term.text), ...near('title_search'), ...near('author_search')])
        }
        return eb.or([held(term.text), ...alternatives.map((all) => eb.and(all.map(held)))])
      })
      return eb.and([eb.not(exactly), ...nearly])
    }
  }
}

/**
 * The SELECT of one read of a search in relevance order (docs/search.md "How a page is read"):
 * the books matching `query`'s other filters and the conditions of rank `read.tier` for `search`
 * (a superset of that rank's books), id ascending, after `read.afterId` and through
 * `read.throughId`, at most `read.size`. The `exactTitle` rank is read from the
 * `(title_search, id)` index (migration 0013) in id order; the others within a window of ids,
 * by the primary key. Selects id, title, author, year.
 */
export async function tierStatement(
  engine: Engine,
  query: BookQuery,
  search: Search,
  read: TierRead,
  pieces: (term: SearchTerm) => string[][] | undefined
): Promise<BuiltQuery> {
  const { builders, sql } = await listQueryBuilders()
  if (engine === 'sqlite' && read.throughId !== undefined) {
    // SQLite expands a virtual generated column at every mention: the search forms' expression
    // (one nested replace() per letter of DIACRITIC_LETTERS) once per condition, which
    // made a one-edit walk's statement take ~50 ms to prepare (once: `SqliteListCompiler`). Read the window in a
    // subquery that cannot be flattened (OFFSET), which SQLite runs as a co-routine in id order:
    // each search form is then written and computed once per row, and the conditions read it.
    const window = sql<BooksTable>`(SELECT id, title, author, year, title_folded, author_folded, title_search, author_search FROM books WHERE id > ${read.afterId} AND id <= ${read.throughId} ORDER BY id LIMIT -1 OFFSET 0)`
    const { sql: text, parameters } = builders.sqlite
      .selectFrom(window.as('books'))
      .select(['id', 'title', 'author', 'year'])
      .where((eb) => filters(eb, query, sql))
      .where((eb) => tierConditions(engine, eb, sql, search, read.tier, pieces))
      .orderBy('id', 'asc')
      .limit(read.size)
      .compile()
    return { sql: text, parameters }
  }
  let select = builders[engine]
    .selectFrom('books')
    .select(['id', 'title', 'author', 'year'])
    .where((eb) => filters(eb, query, sql))
    .where((eb) => tierConditions(engine, eb, sql, search, read.tier, pieces))
    .where('id', '>', read.afterId)
  if (read.throughId !== undefined) select = select.where('id', '<=', read.throughId)
  const { sql: text, parameters } = select.orderBy('id', 'asc').limit(read.size).compile()
  return { sql: text, parameters }
}

/**
 * The first text after every text that starts with `prefix`, in code point order (SQLite's BINARY
 * and PostgreSQL's "C" collation on UTF-8): `prefix` with its last code point the next one; undefined
 * when it ends with U+10FFFF.
 */
function pastPrefix(prefix: string): string | undefined {
  const points = [...prefix].map((character) => character.codePointAt(0)!)
  const last = points.pop()
  if (last === undefined || last === 0x10ffff) return undefined
  // The surrogates are no characters of a text: the next one after U+D7FF is U+E000.
  return String.fromCodePoint(...points, last === 0xd7ff ? 0xe000 : last + 1)
}

/**
 * The books whose title's search form starts with `search.text` (the `titleStart` rank's), read from
 * the `(title_search, id)` index in title order, at most `size`: with `count`, only how many (the
 * index alone); without, the books that also match `query`'s other filters and hold every term.
 *
 * @returns undefined when the text has no range (it ends with U+10FFFF).
 */
export async function titleRangeStatement(engine: Engine, query: BookQuery, search: Search, size: number, count: boolean): Promise<BuiltQuery | undefined> {
  const past = pastPrefix(search.text)
  if (past === undefined) return undefined
  const { builders, sql } = await listQueryBuilders()
  const range = builders[engine].selectFrom('books').where('title_search', '>=', search.text).where('title_search', '<', past)
  if (count) {
    const { sql: text, parameters } = builders[engine]
      .selectFrom(range.select('id').limit(size).as('titles'))
      .select((eb) => eb.fn.countAll<number>().as('total'))
      .compile()
    return { sql: text, parameters }
  }
  const { sql: text, parameters } = range
    .select(['id', 'title', 'author', 'year'])
    .where((eb) => filters(eb, query, sql))
    .where((eb) => tierConditions(engine, eb, sql, search, Rank.titleStart, () => undefined))
    .limit(size)
    .compile()
  return { sql: text, parameters }
}

/**
 * The books where a term of `search` may start a title word (the `titleWordStart` rank's and a
 * few more), found from `title_word_starts` (migration 0015: a key per place a title word may
 * start, of {@link WORD_START_KEY_LENGTH} characters; a term's books are those of the keys
 * starting with its first that many), at most `size` keys per term: with `count`, only how many
 * (the index alone; at least as many as books); without, the books that also match `query`'s
 * other filters and the rank's conditions, at most `size`, in any order.
 *
 * @returns undefined when a term has no key range (it ends with U+10FFFF).
 */
export async function titleWordStartStatement(engine: Engine, query: BookQuery, search: Search, size: number, count: boolean): Promise<BuiltQuery | undefined> {
  const ranges: Array<{ key: string; past: string }> = []
  for (const term of search.terms) {
    const key = [...term.text].slice(0, WORD_START_KEY_LENGTH).join('')
    const past = pastPrefix(key)
    if (past === undefined) return undefined
    ranges.push({ key, past })
  }
  const { builders, sql } = await listQueryBuilders()
  const db = builders[engine]
  // Each term's range read in key order and cut at `size` on its own: the ranges of a broad term
  // in one condition would be read whole by PostgreSQL's bitmap scan (a million keys for `volume`).
  const keys = ranges
    .map((range, index) =>
      db
        .selectFrom(
          db
            .selectFrom('title_word_starts')
            .select('book_id')
            .where('key', '>=', range.key)
            .where('key', '<', range.past)
            .orderBy('key')
            .orderBy('book_id')
            .limit(size)
            .as(`range${index}`)
        )
        .select('book_id')
    )
    .reduce((all, next) => all.unionAll(next))
  const statement = count
    ? db.selectFrom(keys.as('starts')).select((eb) => eb.fn.countAll<number>().as('total'))
    : db
        .selectFrom('books')
        .select(['id', 'title', 'author', 'year'])
        .where('id', 'in', keys)
        .where((eb) => filters(eb, query, sql))
        .where((eb) => tierConditions(engine, eb, sql, search, Rank.titleWordStart, () => undefined))
        .limit(size)
  const { sql: text, parameters } = statement.compile()
  return { sql: text, parameters }
}

/**
 * How many books the search index finds for `pieces` (`indexPieces`, storage/sql/search-pieces.ts),
 * counting at most `size` (as `total`); other filters aside. A search whose count stays under
 * `size` reads its candidates whole.
 */
export async function candidateCountStatement(engine: Engine, pieces: readonly (readonly (readonly string[])[])[], size: number): Promise<BuiltQuery> {
  const { builders, sql } = await listQueryBuilders()
  if (engine === 'sqlite') {
    const { sql: text, parameters } = builders.sqlite
      .selectFrom(sql<{ rowid: number }>`(SELECT rowid FROM book_search WHERE book_search MATCH ${ftsMatch(pieces)} LIMIT ${size})`.as('candidates'))
      .select((eb) => eb.fn.countAll<number>().as('total'))
      .compile()
    return { sql: text, parameters }
  }
  const containing = (piece: string) => sql<boolean>`(title_search LIKE ${likeContaining(piece)} ESCAPE '!' OR author_search LIKE ${likeContaining(piece)} ESCAPE '!')`
  let candidates = builders.postgres.selectFrom('books').select('id')
  for (const alternatives of pieces) candidates = candidates.where((eb) => eb.or(alternatives.map((all) => eb.and(all.map(containing)))))
  const { sql: text, parameters } = builders.postgres
    .selectFrom(candidates.limit(size).as('candidates'))
    .select((eb) => eb.fn.countAll<number>().as('total'))
    .compile()
  return { sql: text, parameters }
}

/**
 * The SELECT of the ids of at most `size` of the books the search index finds for `pieces` (as
 * {@link candidateCountStatement}, other filters aside), in no order, as column `id`: when fewer
 * than `size` come back, they are every candidate ({@link booksByIdStatement} then reads them),
 * told and found by one index scan.
 */
export async function fewCandidatesStatement(engine: Engine, pieces: readonly (readonly (readonly string[])[])[], size: number): Promise<BuiltQuery> {
  const { builders, sql } = await listQueryBuilders()
  if (engine === 'sqlite') {
    return { sql: 'SELECT rowid AS id FROM book_search WHERE book_search MATCH ? LIMIT ?', parameters: [ftsMatch(pieces), size] }
  }
  const containing = (piece: string) => sql<boolean>`(title_search LIKE ${likeContaining(piece)} ESCAPE '!' OR author_search LIKE ${likeContaining(piece)} ESCAPE '!')`
  let candidates = builders.postgres.selectFrom('books').select('id')
  for (const alternatives of pieces) candidates = candidates.where((eb) => eb.or(alternatives.map((all) => eb.and(all.map(containing)))))
  const { sql: text, parameters } = candidates.limit(size).compile()
  return { sql: text, parameters }
}

/**
 * The SELECT of the books of `ids` (by the primary key), id ascending: id, title, author, year.
 * The ids go as one parameter (a JSON array on SQLite, an array on PostgreSQL), so the statement's
 * text is the same for any number of them.
 */
export function booksByIdStatement(engine: Engine, ids: readonly number[]): BuiltQuery {
  if (engine === 'sqlite') {
    return { sql: 'SELECT id, title, author, year FROM books WHERE id IN (SELECT value FROM json_each(?)) ORDER BY id', parameters: [JSON.stringify(ids)] }
  }
  return { sql: 'SELECT id, title, author, year FROM books WHERE id = ANY($1::bigint[]) ORDER BY id', parameters: [ids] }
}

/** The FTS5 query of `pieces`: every group, one of its alternatives, every text of it as a phrase. */
function ftsMatch(pieces: readonly (readonly (readonly string[])[])[]): string {
  const phrase = (piece: string) => `"${piece.replaceAll('"', '""')}"`
  const group = (alternatives: readonly (readonly string[])[]) => `(${alternatives.map((all) => `(${all.map(phrase).join(' AND ')})`).join(' OR ')})`
  return pieces.map(group).join(' AND ')
}

/** The highest book id (`id`, null when there is no book). */
export const MAX_ID_SQL = 'SELECT max(id) AS id FROM books'
