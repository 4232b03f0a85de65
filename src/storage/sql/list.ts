import type { DatabaseIntrospector, DialectAdapter, ExpressionBuilder, Kysely, QueryCompiler, sql as Sql } from 'kysely'
import { foldText } from '../../book/fold.js'
import type { BookFilter, BookQuery, SortField } from '../../book/query.js'
import type { Engine } from '../contracts/engine.js'

/** The `books` table as the list queries see it (migrations 0001 and 0002). */
interface BooksTable {
  id: number
  title: string
  author: string
  year: number
  version: number
  title_folded: string
  author_folded: string
}
interface Database {
  books: BooksTable
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
    const builders = {
      sqlite: builder({ Adapter: kysely.SqliteAdapter, Introspector: kysely.SqliteIntrospector, Compiler: kysely.SqliteQueryCompiler }),
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

/** The LIKE pattern "contains `term`": its `%`, `_` and `!` escaped for `LIKE … ESCAPE '!'`. */
function likeContaining(term: string): string {
  return `%${term.replace(/[!%_]/g, (character) => `!${character}`)}%`
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
      const phrase = (piece: string) => `"${piece.replaceAll('"', '""')}"`
      const group = (alternatives: readonly (readonly string[])[]) => `(${alternatives.map((all) => `(${all.map(phrase).join(' AND ')})`).join(' OR ')})`
      const match = pieces.map(group).join(' AND ')
      select = select.where(sql<boolean>`id IN (SELECT rowid FROM book_search WHERE book_search MATCH ${match})`)
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
