import type Database from 'better-sqlite3'
import type { Book, BookInput, BookPatch } from '../../book/schema.js'
import type { BookFilter, BookQuery } from '../../book/query.js'
import type { AccountStore } from '../account-store.js'
import { StorageUnavailableError, type BookStore, type VersionedBook } from '../book-store.js'
import { insertValues, patchValues } from '../book-sql.js'
import type { IdempotencyClaim, IdempotentCreate } from '../idempotency.js'
import { pagesById, pagesOf } from '../list-pages.js'
import { countStatement, listStatement } from '../list-sql.js'
import { sqliteAccountStore } from './accounts.js'
import { openMigrated } from './connection.js'
import { watchFileIdentity } from './file-identity.js'
import { preparedQueries, prepareStatements } from './statements.js'
import { WriteQueue, type WriteHealthListener } from './write-queue.js'

/** Most books kept in the read cache of {@link SqliteBookStore.get}. */
const CACHED_BOOKS = 10_000

/** Longest wait for the readiness probe's write, in ms: past it the store is reported not ready. */
const PROBE_TIMEOUT_MS = 2000

/** Options of {@link SqliteBookStore.open}. */
export interface SqliteStoreOptions {
  /**
   * Told when writes start failing (the error: a full or failing disk, a read-only file system,
   * the database file removed) and when they succeed again (undefined): one log line each.
   */
  onWriteHealth?: WriteHealthListener
}

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
  private readonly cache = new Map<number, VersionedBook>()
  private readonly statements
  private readonly query

  /** The readiness probe in flight, shared by the readiness checks that come meanwhile. */
  private probe: Promise<void> | undefined

  private constructor(
    private readonly db: Database.Database,
    private readonly writes: WriteQueue,
    private readonly files: ReturnType<typeof watchFileIdentity> | undefined
  ) {
    this.statements = prepareStatements(db)
    this.query = preparedQueries(db)
    this.accounts = sqliteAccountStore(db)
  }

  /**
   * Opens (creating when missing) the database file at `path` and applies pending migrations
   * (connection.ts: `openMigrated`), then starts its writer thread.
   *
   * @throws when the file cannot be created or opened, or a migration fails.
   */
  static async open(path: string, options: SqliteStoreOptions = {}): Promise<SqliteBookStore> {
    const db = await openMigrated(path)
    try {
      const files = path === ':memory:' ? undefined : watchFileIdentity(path)
      return new SqliteBookStore(db, new WriteQueue(path, db, options.onWriteHealth), files)
    } catch (error) {
      db.close()
      throw error
    }
  }

  create(input: BookInput): Promise<Book> {
    return this.writes.write({ op: 'insert', values: insertValues(input) }, () => {})
  }

  /** One write of the group commit: the key's lookup, the book and the key's answer in its transaction. */
  createIdempotent(input: BookInput, claim: IdempotencyClaim): Promise<IdempotentCreate> {
    return this.writes.write({ op: 'insertIdempotent', values: insertValues(input), claim }, () => {})
  }

  trimIdempotencyKeys(before: string): Promise<number> {
    return this.writes.write({ op: 'trimIdempotencyKeys', before }, () => {})
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

  /**
   * Ready when writes can be made: not when the writer thread died or the database file was
   * removed (for good), nor while the last commit failed (a full or failing disk, a read-only file
   * system) until a write succeeds. Then, and when the files are no longer the ones opened, a
   * probe write (a row written and removed, committed and synced like any write; one at a time,
   * at most {@link PROBE_TIMEOUT_MS}) decides, so readiness comes back as soon as writes work.
   */
  async ping(): Promise<void> {
    this.writes.assertWritable()
    if (this.writes.failing || this.files?.changed()) await this.probeWrite()
    this.statements.ping.get()
  }

  /** One probe write through the group commit, shared by concurrent callers; rejects after {@link PROBE_TIMEOUT_MS}. */
  private probeWrite(): Promise<void> {
    this.probe ??= new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new StorageUnavailableError('the readiness probe write did not complete in time')), PROBE_TIMEOUT_MS)
      this.writes.write({ op: 'probe' }, () => {}).then(
        () => resolve(),
        (error: unknown) => reject(error as Error)
      ).finally(() => clearTimeout(timer))
    }).finally(() => (this.probe = undefined))
    return this.probe
  }

  async close(): Promise<void> {
    await this.writes.close()
    this.db.close()
  }

  /** Adds a book read from the file to the read cache, dropping the oldest entry when full. */
  private remember(book: VersionedBook): void {
    if (this.cache.size >= CACHED_BOOKS) this.cache.delete(this.cache.keys().next().value!)
    this.cache.set(book.id, book)
  }
}
