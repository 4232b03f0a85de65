import type Sqlite from 'better-sqlite3'
import type { Book, BookInput, BookPatch } from '../../book/schema.js'
import { hasSubstringFilter, type BookFilter, type BookQuery } from '../../book/query.js'
import type { AccountStore } from '../contracts/account-store.js'
import type { ApiTokenStore } from '../contracts/api-token-store.js'
import type { BookStore, BookWriteOutcome, VersionedBook } from '../contracts/book-store.js'
import { StorageUnavailableError, type Database } from '../contracts/database.js'
import type { LoginAttempts } from '../contracts/login-attempts.js'
import { insertValues, patchValues } from '../sql/book-statements.js'
import type { IdempotencyClaim, IdempotentCreate } from '../contracts/idempotency.js'
import { pagesById, pagesOf } from '../sql/list-pages.js'
import { countStatement, listStatement, searchStatement, type BuiltQuery } from '../sql/list.js'
import { FEW_CANDIDATES, rankedSearch, SEARCH_BOUND_MS, searchCount, searchList, type ReadCandidates, type SearchReadOptions } from '../sql/search-results.js'
import { DEFAULT_RETENTION, TRIM_INTERVAL_MS, type ChangeLogOptions } from '../retention.js'
import { changeLogStatements, type HorizonRow } from '../sql/change-log-statements.js'
import type { HistoryPage, RestoreOutcome } from '../contracts/book-history.js'
import { isRestorable } from '../../book/validation.js'
import { readHistoryPage } from '../sql/book-history-statements.js'
import { sqliteAccountStore } from './sqlite-account-store.js'
import { sqliteApiTokenStore } from './sqlite-api-token-store.js'
import { SqliteChangeLog } from './sqlite-change-log.js'
import type { ChangeContext } from '../contracts/change-log.js'
import { openConnection, openMigrated } from './sqlite-connection.js'
import { damagedFileError, isDamaged } from './sqlite-damaged-file.js'
import { watchFileIdentity } from './sqlite-file-identity.js'
import { SqliteLoginAttempts } from './sqlite-login-attempts.js'
import { sqliteWebhookStore } from './sqlite-webhook-store.js'
import type { WebhookStore } from '../contracts/webhook-store.js'
import { SqliteSearchReader } from './sqlite-search-reader.js'
import { preparedQueries, prepareStatements } from './sqlite-statements.js'
import type { WriteOp } from './sqlite-group-commit.js'
import { WriteQueue, type WriteHealthListener } from './sqlite-write-queue.js'

/** The change log's statements on SQLite. */
const CHANGE_LOG_SQL = changeLogStatements('sqlite')

/** Most books kept in the read cache of {@link SqliteDatabase.get}. */
const CACHED_BOOKS = 10_000

/** Longest wait for the readiness probe's write, in ms: past it the store is reported not ready. */
const PROBE_TIMEOUT_MS = 2000

/** Options of {@link SqliteDatabase.open}. */
export interface SqliteDatabaseOptions extends ChangeLogOptions {
  /**
   * Told when writes start failing (the error: a full or failing disk, a read-only file system,
   * the database file removed) and when they succeed again (undefined): one log line each.
   */
  onWriteHealth?: WriteHealthListener
  /** How searches are read (their cost only; storage/sql/search-results.ts). */
  search?: SearchReadOptions
}

/**
 * Ids one statement of a search's walk by id covers on SQLite: a few milliseconds of the event
 * loop each (docs/search.md "How a page is read").
 */
const SEARCH_WINDOW = 16_384

/**
 * The embedded SQLite {@link Database} (better-sqlite3): WAL journal with `synchronous=FULL`
 * (sqlite-connection.ts), `AUTOINCREMENT` ids, prepared statements (sqlite-statements.ts).
 *
 * Reads run on the main thread's connection. Writes go through the group commit of
 * {@link WriteQueue} (sqlite-write-queue.ts: one transaction and one fsync per batch, on a writer
 * thread for a database file), and each resolves only once it is on disk.
 *
 * Single books read by id are cached (up to 10,000, oldest dropped first), and the cache is never
 * stale, whoever writes the file (this process, other service processes on the same file,
 * `book-service import`): the reads of each event-loop turn first wait for one comparison of the
 * connection's `PRAGMA data_version`, which moves when any other connection commits (the writer
 * thread included), with the one it saw last, made after all of them were asked for ({@link caughtUp};
 * no I/O; docs/several-instances.md "Running several instances"). When it moved, the change log tells which books
 * changed since the last change it saw, and exactly those leave the cache (all of them when
 * more changed than the cache holds, or retention removed rows it had not seen). A write of this
 * store drops its book from the cache once committed rather than putting its result there: a
 * process that commits after it may already have changed the book again.
 */
export class SqliteDatabase implements Database, BookStore {
  /**
   * The book operations are this object's own: they share its read cache, its write queue and
   * whether the file was found damaged with {@link ping} and {@link unavailableFor}.
   */
  readonly books: BookStore = this
  readonly accounts: AccountStore
  readonly apiTokens: ApiTokenStore
  readonly changes: SqliteChangeLog
  readonly loginAttempts: LoginAttempts
  readonly webhooks: WebhookStore
  private readonly cache = new Map<number, VersionedBook>()
  private readonly statements
  private readonly query
  private readonly changedBooks
  private readonly horizon
  /** The `PRAGMA data_version` the cache was last brought in line with. */
  private seenVersion: number
  /** The highest change-log number the cache was last brought in line with. */
  private seenSeq: number
  /** The reads waiting for this turn's {@link catchUp} ({@link caughtUp}). */
  private waitingReads: Array<{ resolve: () => void; reject: (error: unknown) => void }> = []

  /** Whether any `Idempotency-Key` answer is older than the time given (a read on the main connection). */
  private readonly expiredIdempotencyKey: Sqlite.Statement<[string], { 1: number }>
  /** The readiness probe in flight, shared by the readiness checks that come meanwhile. */
  private probe: Promise<void> | undefined
  /** Set once a read or write found the database file damaged: the store serves nothing more until restarted. */
  private damage: StorageUnavailableError | undefined
  /** Runs the searches' walks off the event loop (a file only: an in-memory database has one connection). */
  private readonly searchReader: SqliteSearchReader | undefined

  private constructor(
    private readonly db: Sqlite.Database,
    private readonly writes: WriteQueue,
    private readonly files: ReturnType<typeof watchFileIdentity> | undefined,
    private readonly attemptsDb: Sqlite.Database,
    private readonly path: string,
    private readonly onWriteHealth: WriteHealthListener | undefined,
    private readonly searchOptions: Required<SearchReadOptions>
  ) {
    this.statements = prepareStatements(db)
    this.expiredIdempotencyKey = db.prepare<[string], { 1: number }>('SELECT 1 FROM idempotency_keys WHERE created_at < ? LIMIT 1')
    this.query = preparedQueries(db)
    this.accounts = sqliteAccountStore(db)
    this.changes = new SqliteChangeLog(db, () => this.changeMark())
    this.changedBooks = db.prepare<[number, number], { seq: number; book_id: number }>(CHANGE_LOG_SQL.changedBooks)
    this.seenVersion = this.statements.dataVersion.get()!
    this.horizon = db.prepare<[], HorizonRow>(CHANGE_LOG_SQL.horizon)
    this.seenSeq = this.horizon.get()!.last_seq
    this.loginAttempts = new SqliteLoginAttempts(attemptsDb)
    this.webhooks = sqliteWebhookStore(attemptsDb, writes)
    this.apiTokens = sqliteApiTokenStore(db, attemptsDb)
    this.searchReader = path === ':memory:' ? undefined : new SqliteSearchReader(path)
  }

  /**
   * Opens (creating when missing) the database file at `path` and applies pending migrations
   * (sqlite-connection.ts: `openMigrated`), then starts its writer thread, which also keeps the change
   * log's retention.
   *
   * @param options the change log's retention (docs/change-feed.md "Change log"), and who is told of write failures.
   * @throws when the file cannot be created or opened, or a migration fails.
   */
  static async open(path: string, options: SqliteDatabaseOptions = {}): Promise<SqliteDatabase> {
    const db = await openMigrated(path)
    let attemptsDb: Sqlite.Database | undefined
    try {
      const writer = { path, retention: options.retention ?? DEFAULT_RETENTION, trimIntervalMs: options.trimIntervalMs ?? TRIM_INTERVAL_MS }
      const files = path === ':memory:' ? undefined : watchFileIdentity(path)
      // The login counters on a connection of their own, without an fsync per attempt
      // (sqlite/sqlite-login-attempts.ts); an in-memory database has only the one connection.
      attemptsDb = path === ':memory:' ? db : openConnection(path)
      if (attemptsDb !== db) attemptsDb.pragma('synchronous = NORMAL')
      const search = { fewCandidates: FEW_CANDIDATES, windowSize: SEARCH_WINDOW, boundMs: SEARCH_BOUND_MS, ...options.search }
      return new SqliteDatabase(db, new WriteQueue(writer, db, options.onWriteHealth), files, attemptsDb, path, options.onWriteHealth, search)
    } catch (error) {
      if (attemptsDb !== db) attemptsDb?.close()
      db.close()
      throw error
    }
  }

  create(input: BookInput, context: ChangeContext): Promise<Book> {
    return this.write({ op: 'insert', values: insertValues(input), context }, () => {})
  }

  /** One write of the group commit: the key's lookup, the book and the key's answer in its transaction. */
  createIdempotent(input: BookInput, claim: IdempotencyClaim, context: ChangeContext): Promise<IdempotentCreate> {
    return this.write({ op: 'insertIdempotent', values: insertValues(input), claim, context }, () => {})
  }

  trimIdempotencyKeys(before: string): Promise<number> {
    // Nothing expired (as at most starts): no write, so the writer thread is not started for it
    // (sqlite-write-queue.ts). A key expiring meanwhile is removed by the next round.
    if (this.expiredIdempotencyKey.get(before) === undefined) return Promise.resolve(0)
    return this.write({ op: 'trimIdempotencyKeys', before }, () => {})
  }

  async *list(query?: BookQuery): AsyncIterable<Book> {
    this.assertSound()
    if (query?.search) {
      if (query.sort !== undefined) {
        yield* await searchList(query, query.search, this.searchCandidates(query), this.searchOptions.boundMs)
        return
      }
      yield* rankedSearch(query, query.search, {
        engine: 'sqlite',
        // A walk's statement scans a window of thousands of rows: on the reader thread, off the event loop.
        run: <Row>(statement: BuiltQuery) => this.readMayScan<Row>(statement, true),
        readCandidates: this.searchCandidates(query),
        options: this.searchOptions,
        // Migration 0015 fills `title_word_starts` in its own transaction: there whenever the table is.
        wordStartsReady: async () => true
      })
      return
    }
    if (query) {
      // Each page read whole (`all()`): a statement iterated across event-loop turns would be
      // busy for the next request of the same shape (one prepared statement per shape).
      const readPage = async (page: BookQuery) => this.readMayScan<Book>(await listStatement('sqlite', page), hasSubstringFilter(page))
      for await (const page of pagesOf(query, readPage)) yield* page
      return
    }
    for await (const page of pagesById(this.statements.page)) yield* page
  }

  /** Reads the candidates of a search (docs/search.md "Search"), each read one statement taken whole. */
  private searchCandidates(query: BookQuery): ReadCandidates {
    return async (pieces, afterId, size) => {
      const { sql, parameters } = await searchStatement('sqlite', query, pieces, afterId, size)
      return this.query(sql).all(...parameters) as Book[]
    }
  }

  async count(filter: BookFilter): Promise<number> {
    this.assertSound()
    if (filter.search) return searchCount(filter, filter.search, this.searchCandidates(filter), this.searchOptions.boundMs)
    const [row] = await this.readMayScan<{ total: number }>(await countStatement('sqlite', filter), true)
    return row!.total
  }

  /**
   * Runs a list, count or search statement and returns its rows: on the reader thread when it may
   * read every book (`scans`: a search's walk, a count, a title or author substring), so the event
   * loop goes on serving beside it (docs/operations.md "Bounded reads"); else, or on a database in
   * memory, on the main connection.
   */
  private async readMayScan<Row>(statement: BuiltQuery, scans: boolean): Promise<Row[]> {
    if (scans && this.searchReader) return this.searchReader.run<Row>(statement)
    return this.query(statement.sql).all(...statement.parameters) as Row[]
  }

  async get(id: number): Promise<VersionedBook | undefined> {
    await this.caughtUp()
    const cached = this.cache.get(id)
    if (cached !== undefined) return cached
    const book = this.statements.get.get(id)
    if (book !== undefined) this.remember(book)
    return book
  }

  /**
   * With `expectedVersion`, the compare and the write are one statement, run inside the
   * group-commit transaction like every write; when it changes nothing, the existence check runs
   * in the same transaction, so no other write can come between them (SQLite has one writer: the
   * writer's connection).
   */
  update(id: number, patch: BookPatch, context: ChangeContext, expectedVersion?: number): Promise<BookWriteOutcome<{ book: VersionedBook }>> {
    const values = patchValues(patch)
    return this.write<BookWriteOutcome<{ book: VersionedBook }>>(
      expectedVersion === undefined
        ? { op: 'update', id, values, context }
        : { op: 'updateIfVersion', id, version: expectedVersion, values, context },
      () => this.cache.delete(id)
    )
  }

  delete(id: number, context: ChangeContext, expectedVersion?: number): Promise<BookWriteOutcome> {
    return this.write<BookWriteOutcome>(
      expectedVersion === undefined ? { op: 'delete', id, context } : { op: 'deleteIfVersion', id, version: expectedVersion, context },
      () => this.cache.delete(id)
    )
  }

  async history(id: number, before: number, limit: number): Promise<HistoryPage | undefined> {
    return readHistoryPage(
      id,
      before,
      limit,
      async (bookId, before, size) => this.statements.historyPage.all(bookId, before, size),
      async (bookId) => this.statements.historyAny.get(bookId) !== undefined
    )
  }

  async hasHistory(id: number): Promise<boolean> {
    return this.statements.historyAny.get(id) !== undefined
  }

  /** One write of the group commit (sqlite-group-commit.ts `restore`): the version's lookup, the check and the write in its transaction. */
  async restore(id: number, version: number, expectedVersion: number | undefined, context: ChangeContext): Promise<RestoreOutcome> {
    // The version's book is checked against today's rules here, before the write is queued: a
    // change-log row never changes, so the check still holds when the writer thread runs the
    // restore, and the writer thread does not load the schema's validator (Ajv: ~0.5 s to import
    // on a loaded machine, which every process's first write would wait for).
    const target = this.statements.historyVersion.get(id, version)
    if (target !== undefined && !isRestorable(target)) return { outcome: 'unrestorable' }
    const restoring = { ...context, restoredFrom: version }
    return this.writes.write<RestoreOutcome>({ op: 'restore', id, version, expectedVersion, context: restoring }, () => this.cache.delete(id))
  }

  /**
   * The write queue's committed batches and the connection's `PRAGMA data_version` (which moves when
   * another connection commits: the writer thread, or `book-service import` in another process).
   * The main connection never holds a read transaction across event-loop turns, so the pragma
   * always sees the latest commit.
   */
  changeMark(): string {
    // A damaged store's mark matches no other: nothing read before is reused (reads then fail, 503).
    if (this.damage || isDamaged(this.writes.failing)) return `damaged:${this.writes.commitCount}:${performance.now()}`
    return `${this.writes.commitCount}:${this.statements.dataVersion.get()}`
  }

  /**
   * Ready when writes can be made: not when the writer thread died or the database file was
   * removed (for good), nor while the last commit failed (a full or failing disk, a read-only file
   * system) until a write succeeds. Then, and when the files are no longer the ones opened, a
   * probe write (a row written and removed, committed and synced like any write; one at a time,
   * at most {@link PROBE_TIMEOUT_MS}) decides, so readiness comes back as soon as writes work.
   * Last, a read of the file itself (the change log's horizon): a file emptied or overwritten
   * under the service (`SQLITE_NOTADB`, `SQLITE_CORRUPT`) makes the store unavailable for good.
   */
  async ping(): Promise<void> {
    if (this.damage) throw this.damage
    this.writes.assertWritable()
    if (this.writes.failing || this.files?.changed()) await this.probeWrite()
    try {
      this.statements.ping.get()
      this.horizon.get()
    } catch (error) {
      throw this.unavailableFor(error) ?? error
    }
  }

  /**
   * A damaged database file (`SQLITE_NOTADB`, `SQLITE_CORRUPT`: docs/operations.md "Readiness") makes the
   * store unavailable until it is restarted on a sound file: this error and every later one
   * answer 503, readiness fails, and it is logged once (as writes failing).
   */
  unavailableFor(error: unknown): StorageUnavailableError | undefined {
    if (!isDamaged(error)) return undefined
    if (this.damage === undefined) {
      this.damage = damagedFileError(this.path, error as Error)
      this.onWriteHealth?.(this.damage)
    }
    return this.damage
  }

  /** One write through the group commit, refused at once (503) once the file was found damaged. */
  private write<T>(write: WriteOp, committed: (value: T) => unknown): Promise<T> {
    if (this.damage) return Promise.reject(this.damage)
    return this.writes.write<T>(write, committed)
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
    this.changes.stop()
    await this.searchReader?.close()
    await this.writes.close()
    if (this.attemptsDb !== this.db) this.attemptsDb.close()
    this.db.close()
  }

  /**
   * Resolves once the read cache is in line with every commit made before this call, by any
   * connection: the reads of one event-loop turn wait for one {@link catchUp}, run in that turn's
   * `setImmediate` (right after the poll phase), so after every one of them was asked for. A
   * commit acknowledged before a request was sent is thus always seen by its read, with one
   * `PRAGMA data_version` per turn instead of one per read.
   *
   * @throws what {@link catchUp} throws (a damaged file, a failing read), to every waiting read.
   */
  private caughtUp(): Promise<void> {
    return new Promise((resolve, reject) => {
      if (this.waitingReads.push({ resolve, reject }) === 1) setImmediate(this.catchUpWaiting)
    })
  }

  /** Runs {@link catchUp} once for every read waiting in {@link waitingReads}, then lets them go on. */
  private readonly catchUpWaiting = () => {
    const waiting = this.waitingReads
    this.waitingReads = []
    try {
      this.catchUp()
    } catch (error) {
      for (const read of waiting) read.reject(error)
      return
    }
    for (const read of waiting) read.resolve()
  }

  /**
   * Brings the read cache in line with every commit made since it last looked, by any
   * connection: nothing to do (one `PRAGMA data_version`, no I/O) unless another connection
   * committed; then the books the change log names since {@link seenSeq} leave the cache. The
   * version is read before the log, so a commit landing between the two is looked at again.
   */
  /**
   * Throws the store's damage ({@link unavailableFor}) once it is known: found by a read, or by the
   * writer thread's check of the file (every second: an emptied database file), which this
   * connection would not notice while it answers from its cache and its log.
   */
  private assertSound(): void {
    if (this.damage) throw this.damage
    const failing = this.writes.failing
    if (failing && isDamaged(failing)) throw this.unavailableFor(failing)!
  }

  private catchUp(): void {
    this.assertSound()
    const version = this.statements.dataVersion.get()!
    if (version === this.seenVersion) return
    this.seenVersion = version
    const changed = this.changedBooks.all(this.seenSeq, CACHED_BOOKS + 1)
    const horizon = this.horizon.get()!
    if (changed.length > CACHED_BOOKS || horizon.trimmed_through > this.seenSeq) {
      // More changes than the cache holds, or retention removed some before this connection saw
      // them: start afresh.
      this.cache.clear()
      this.seenSeq = horizon.last_seq
      return
    }
    for (const row of changed) this.cache.delete(row.book_id)
    if (changed.length > 0) this.seenSeq = changed[changed.length - 1]!.seq
  }

  /** Adds a book read from the file to the read cache, dropping the oldest entry when full. */
  private remember(book: VersionedBook): void {
    if (this.cache.size >= CACHED_BOOKS) this.cache.delete(this.cache.keys().next().value!)
    this.cache.set(book.id, book)
  }
}
