import type pg from 'pg'
import type { Book } from '../../book/schema.js'
import type { BookFilter, BookQuery } from '../../book/query.js'
import type { VersionedBook } from '../contracts/book-store.js'
import type { HistoryPage } from '../contracts/book-history.js'
import type { BookReads } from '../contracts/read-replicas.js'
import { pagesById, pagesOf } from '../sql/list-pages.js'
import { countStatement, listStatement, searchStatement, type BuiltQuery } from '../sql/list.js'
import { rankedSearch, searchCount, searchList, type ReadCandidates, type SearchReadOptions } from '../sql/search-results.js'
import { readHistoryPage, type HistoryRow } from '../sql/book-history-statements.js'
import { WORD_STARTS_BACKFILL } from '../schema/migrations/0015_title_word_starts.js'
import { STATEMENTS, type Statement } from './postgres-statements.js'

/** Whether a backfill of `online_backfills` (migration 0015) is done. */
const WORD_STARTS_DONE_SQL = 'SELECT done FROM online_backfills WHERE name = $1'

/** Runs one statement on one server's pool (postgres-statements.ts `statementRunner`), resolving with its rows. */
export type Query = <Row extends pg.QueryResultRow>(statement: Statement, values: unknown[]) => Promise<Row[]>

/**
 * The book reads of one PostgreSQL server, the primary's or a read replica's (the same statements:
 * a streaming replica has the primary's schema): lists, counts, searches, point reads and histories.
 * The writes, and the reads a write decides on, are `PostgresDatabase`'s own, on the primary.
 */
export class PostgresBookReads implements BookReads {
  /** A backfill once done stays done: {@link wordStartsReady} stops asking. */
  private wordStartsDone = false

  constructor(
    private readonly query: Query,
    private readonly searchOptions: Required<SearchReadOptions>
  ) {}

  async *list(query?: BookQuery): AsyncIterable<Book> {
    if (query?.search) {
      if (query.sort !== undefined) {
        yield* await searchList(query, query.search, this.searchCandidates(query), this.searchOptions.boundMs)
        return
      }
      yield* rankedSearch(query, query.search, {
        engine: 'postgres',
        run: <Row>(statement: BuiltQuery) => this.query<Row & pg.QueryResultRow>({ text: statement.sql }, [...statement.parameters]),
        readCandidates: this.searchCandidates(query),
        options: this.searchOptions,
        wordStartsReady: () => this.wordStartsReady()
      })
      return
    }
    if (query) {
      const readPage = async (page: BookQuery) => {
        const { sql, parameters } = await listStatement('postgres', page)
        return this.query<Book>({ text: sql }, [...parameters])
      }
      for await (const page of pagesOf(query, readPage)) yield* page
      return
    }
    for await (const page of pagesById((after, size) => this.query<Book>(STATEMENTS.page, [after, size]))) yield* page
  }

  /** Whether migration 0015's online backfill of `title_word_starts` is done: asked until it is, then known. */
  private async wordStartsReady(): Promise<boolean> {
    if (!this.wordStartsDone) {
      const rows = await this.query<{ done: boolean }>({ text: WORD_STARTS_DONE_SQL }, [WORD_STARTS_BACKFILL])
      this.wordStartsDone = rows[0]?.done === true
    }
    return this.wordStartsDone
  }

  async count(filter: BookFilter): Promise<number> {
    if (filter.search) return searchCount(filter, filter.search, this.searchCandidates(filter), this.searchOptions.boundMs)
    const { sql, parameters } = await countStatement('postgres', filter)
    const rows = await this.query<{ total: number }>({ text: sql }, [...parameters])
    return rows[0]!.total
  }

  async get(id: number): Promise<VersionedBook | undefined> {
    return (await this.query<VersionedBook>(STATEMENTS.get, [id]))[0]
  }

  history(id: number, before: number, limit: number): Promise<HistoryPage | undefined> {
    return readHistoryPage(
      id,
      before,
      limit,
      (bookId, before, size) => this.query<HistoryRow>(STATEMENTS.historyPage, [bookId, before, size]),
      (bookId) => this.hasHistory(bookId)
    )
  }

  async hasHistory(id: number): Promise<boolean> {
    return (await this.query(STATEMENTS.historyAny, [id])).length > 0
  }

  /** Reads the candidates of a search (docs/search.md "Search"). */
  private searchCandidates(query: BookQuery): ReadCandidates {
    return async (pieces, afterId, size) => {
      const { sql, parameters } = await searchStatement('postgres', query, pieces, afterId, size)
      return this.query<Book>({ text: sql }, [...parameters])
    }
  }
}
