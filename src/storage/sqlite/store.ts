import type Database from 'better-sqlite3'
import type { Book, BookInput, BookPatch } from '../../book/schema.js'
import type { BookFilter, BookQuery } from '../../book/query.js'
import type { AccountStore } from '../account-store.js'
import type { LoginAttempts } from '../login-attempts.js'
import type { BookStore, VersionedBook } from '../book-store.js'
import { insertValues, patchValues } from '../book-sql.js'
import { pagesById, pagesOf } from '../list-pages.js'
import { countStatement, listStatement } from '../list-sql.js'
import { sqliteAccountStore } from './accounts.js'
import { openConnection, openMigrated } from './connection.js'
import { SqliteLoginAttempts } from './login-attempts.js'
import { preparedQueries, prepareStatements } from './statements.js'
import { WriteQueue } from './write-queue.js'

/** Most books kept in the read cache of {@link SqliteBookStore.get}. */
const CACHED_BOOKS = 10_000

/**
 * The embedded SQLite {@link BookStore} (better-sqlite3): WAL journal with `synchronous=FULL`
 * (connection.ts), `AUTOINCREMENT` ids, prepared statements (statements.ts).
 *
 * Reads run on the main thread's connection. Writes go through the group commit of
 * {@link WriteQueue} (write-queue.ts: one transaction and one fsync per batch, on a writer
 * thread for a database file), and each resolves only once it is on disk.
 *
 * Single books read by id are cached (up to 10,000, oldest dropped first). The store is the only
 * process that changes or deletes books in its file (one service process per SQLite database),
 * and every committed write updates or drops its book in the cache before anyone can read again.
 * The one other writer, `book-service import`, only inserts books under ids that no
 * book has; the cache holds only books that exist and never remembers a miss, so nothing it
 * holds can be changed by an import, and imported books are read from the file on first use:
 * the cache is never stale.
 */
export class SqliteBookStore implements BookStore {
  readonly accounts: AccountStore
  readonly loginAttempts: LoginAttempts
  private readonly cache = new Map<number, VersionedBook>()
  private readonly statements
  private readonly query

  private constructor(
    private readonly db: Database.Database,
    private readonly writes: WriteQueue,
    private readonly attemptsDb: Database.Database
  ) {
    this.statements = prepareStatements(db)
    this.query = preparedQueries(db)
    this.accounts = sqliteAccountStore(db)
    this.loginAttempts = new SqliteLoginAttempts(attemptsDb)
  }

  /**
   * Opens (creating when missing) the database file at `path` and applies pending migrations
   * (connection.ts: `openMigrated`), then starts its writer thread.
   *
   * @throws when the file cannot be created or opened, or a migration fails.
   */
  static async open(path: string): Promise<SqliteBookStore> {
    const db = await openMigrated(path)
    let attemptsDb: Database.Database | undefined
    try {
      // The login counters on a connection of their own, without an fsync per attempt
      // (sqlite/login-attempts.ts); an in-memory database has only the one connection.
      attemptsDb = path === ':memory:' ? db : openConnection(path)
      if (attemptsDb !== db) attemptsDb.pragma('synchronous = NORMAL')
      return new SqliteBookStore(db, new WriteQueue(path, db), attemptsDb)
    } catch (error) {
      if (attemptsDb !== db) attemptsDb?.close()
      db.close()
      throw error
    }
  }

  create(input: BookInput): Promise<Book> {
    return this.writes.write({ op: 'insert', values: insertValues(input) }, () => {})
  }

  async *list(query?: BookQuery): AsyncIterable<Book> {
    if (query) {
      // Each page read whole (`all()`): a statement iterated across event-loop turns would be
      // busy for the next request of the same shape (one prepared statement per shape).
      const readPage = async (page: BookQuery) => {
        const { sql, parameters } = await listStatement('sqlite', page)
        return this.query(sql).all(...parameters) as Book[]
      }
      for await (const page of pagesOf(query, readPage)) yield* page
      return
    }
    for await (const page of pagesById(this.statements.page)) yield* page
  }

  async count(filter: BookFilter): Promise<number> {
    const { sql, parameters } = await countStatement('sqlite', filter)
    return (this.query(sql).get(...parameters) as { total: number }).total
  }

  async get(id: number): Promise<VersionedBook | undefined> {
    const cached = this.cache.get(id)
    if (cached !== undefined) return cached
    const book = this.statements.get.get(id)
    if (book !== undefined) this.remember(book)
    return book
  }

  update(id: number, patch: BookPatch): Promise<VersionedBook | undefined> {
    return this.writes.write<VersionedBook | undefined>({ op: 'update', id, values: patchValues(patch) }, (book) =>
      book === undefined ? this.cache.delete(id) : this.cache.has(id) && this.cache.set(id, book)
    )
  }

  /**
   * The compare and the write are one statement, run inside the group-commit transaction like
   * every write; when it changes nothing, the existence check runs in the same transaction, so
   * no other write can come between them (SQLite has one writer: the writer's connection).
   */
  updateIfVersion(id: number, version: number, patch: BookPatch): Promise<VersionedBook | 'missing' | 'stale'> {
    return this.writes.write<VersionedBook | 'missing' | 'stale'>(
      { op: 'updateIfVersion', id, version, values: patchValues(patch) },
      (result) => (result === 'missing' ? this.cache.delete(id) : result !== 'stale' && this.cache.has(id) && this.cache.set(id, result))
    )
  }

  delete(id: number): Promise<boolean> {
    return this.writes.write<boolean>({ op: 'delete', id }, () => this.cache.delete(id))
  }

  deleteIfVersion(id: number, version: number): Promise<'deleted' | 'missing' | 'stale'> {
    return this.writes.write<'deleted' | 'missing' | 'stale'>({ op: 'deleteIfVersion', id, version }, (result) =>
      result === 'stale' ? undefined : this.cache.delete(id)
    )
  }

  /**
   * The write queue's committed batches and the connection's `PRAGMA data_version` (which moves when
   * another connection commits: the writer thread, or `book-service import` in another process).
   * The main connection never holds a read transaction across event-loop turns, so the pragma
   * always sees the latest commit.
   */
  changeMark(): string {
    return `${this.writes.commitCount}:${this.statements.dataVersion.get()}`
  }

  async ping(): Promise<void> {
    // Not ready when the writer thread died: writes would all fail.
    this.writes.assertWritable()
    this.statements.ping.get()
  }

  async close(): Promise<void> {
    await this.writes.close()
    if (this.attemptsDb !== this.db) this.attemptsDb.close()
    this.db.close()
  }

  /** Adds a book read from the file to the read cache, dropping the oldest entry when full. */
  private remember(book: VersionedBook): void {
    if (this.cache.size >= CACHED_BOOKS) this.cache.delete(this.cache.keys().next().value!)
    this.cache.set(book.id, book)
  }
}
