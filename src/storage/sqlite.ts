import { closeSync, mkdirSync, openSync } from 'node:fs'
import { dirname } from 'node:path'
import { Worker } from 'node:worker_threads'
import Database from 'better-sqlite3'
import type { Book, BookInput, BookPatch } from '../schemas/book.js'
import { LIST_PAGE_SIZE, type BookFilter, type BookQuery, type BookStore, type VersionedBook } from './book-store.js'
import { countStatement, listStatement } from './book-query-sql.js'
import { foldText } from './fold.js'
import { isUpToDate, migrateToLatest } from './migrations.js'
import { SqliteAccountStore } from './sqlite-accounts.js'
import { patchValues } from './patch-values.js'
import { groupCommit, toError, type WriteError, type WriteOp, type WriteOutcome } from './sqlite-writes.js'

interface WriteJob {
  write: WriteOp
  /** Brings the read cache in line with the write's result; runs only once it is committed. */
  committed: (value: never) => void
  resolve: (value: never) => void
  reject: (error: unknown) => void
}

/** A reply of the writer thread (see `sqlite-writer.ts`). */
type WriterReply = { outcomes: WriteOutcome[] } | { failed: WriteError }

/**
 * The writer thread's script: the `.ts` source under tsx (tests: the thread inherits the
 * process's `--import tsx`), the built `.js` otherwise.
 */
const WRITER_URL = new URL(import.meta.url.endsWith('.ts') ? './sqlite-writer.ts' : './sqlite-writer.js', import.meta.url)

/** Most books kept in the read cache of {@link SqliteBookStore.get}. */
const CACHED_BOOKS = 10_000

const COLUMNS = 'id, title, author, year'
const VERSIONED = `${COLUMNS}, version`

/** Most distinct list/count statements kept prepared (one per shape of query, not per value). */
const PREPARED_QUERIES = 64

/** A books row in raw mode: the {@link COLUMNS} in order. */
type BookRow = [id: number, title: string, author: string, year: number]

/** The migrations recorded as applied in `db` (none when the history table does not exist yet). */
function appliedMigrations(db: Database.Database): string[] {
  const table = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'kysely_migration'").get()
  return table === undefined ? [] : db.prepare('SELECT name FROM kysely_migration').pluck().all() as string[]
}

/** Starts the writer thread of the database file at `path`. */
function startWriter(path: string): Worker {
  return new Worker(WRITER_URL, { workerData: { path } })
}

/**
 * The embedded SQLite {@link BookStore} (better-sqlite3): WAL journal with `synchronous=FULL`,
 * `AUTOINCREMENT` ids, prepared statements.
 *
 * Writes use group commit: the writes queued together run in one transaction (each in its own
 * savepoint) and share one fsync; each promise resolves only after that commit returned, so no
 * write is acknowledged before it is on disk. For a database file, the commits run on a writer
 * thread with its own connection (`sqlite-writer.ts`): while one batch is being committed and
 * synced, the main thread keeps serving requests and queues the next batch, which is sent the
 * moment the previous commit returns. Batches are committed one at a time, in order. An
 * in-memory database (tests) commits on the main thread, batching the writes of one event-loop turn.
 *
 * Single books read by id are cached (up to 10,000, oldest dropped first). The store is the only
 * process that changes or deletes books in its file (one service process per SQLite database),
 * and every committed write updates or drops its book in the cache before anyone can read again.
 * The one other writer, `book-service import` (issue 14), only inserts books under ids that no
 * book has; the cache holds only books that exist and never remembers a miss, so nothing it
 * holds can be changed by an import, and imported books are read from the file on first use:
 * the cache is never stale.
 */
export class SqliteBookStore implements BookStore {
  private queue: WriteJob[] = []
  /** The batch the writer thread is committing (writer mode). */
  private inFlight: WriteJob[] | undefined
  private scheduled = false
  /** Set once the writer thread died: every later write fails with it. */
  private broken: Error | undefined
  private idleWaiters: Array<() => void> = []
  private readonly cache = new Map<number, VersionedBook>()
  private readonly prepared = new Map<string, Database.Statement>()
  private readonly commit: ((batch: WriteOp[]) => WriteOutcome[]) | undefined
  private readonly statements
  readonly accounts: SqliteAccountStore

  private constructor(
    private readonly db: Database.Database,
    private readonly writer: Worker | undefined
  ) {
    this.commit = writer ? undefined : groupCommit(db)
    this.accounts = new SqliteAccountStore(db)
    writer?.on('message', (reply: WriterReply) => this.committed(reply))
    writer?.on('error', (error) => this.fail(error))
    writer?.on('exit', (code) => this.fail(new Error(`the SQLite writer thread exited (${code})`)))
    writer?.unref()
    this.statements = {
      // Rows as arrays (made into Books in JavaScript): about twice as fast as native row objects.
      page: db
        .prepare<[number, number], BookRow>(`SELECT ${COLUMNS} FROM books WHERE id > ? ORDER BY id LIMIT ?`)
        .raw(true),
      get: db.prepare<[number], VersionedBook>(`SELECT ${VERSIONED} FROM books WHERE id = ?`),
      ping: db.prepare('SELECT 1')
    }
  }

  /**
   * Opens (creating when missing) the database file at `path`, its folder (mode 0700) and the
   * file itself (mode 0600), then applies pending migrations.
   *
   * @throws when the file cannot be created or opened, or a migration fails.
   */
  static async open(path: string): Promise<SqliteBookStore> {
    if (path !== ':memory:') {
      mkdirSync(dirname(path), { recursive: true, mode: 0o700 })
      // Create the file ourselves so it is private; SQLite gives -wal and -shm the same mode.
      closeSync(openSync(path, 'a', 0o600))
    }
    const db = new Database(path)
    try {
      db.pragma('journal_mode = WAL')
      db.pragma('synchronous = FULL')
      db.pragma('busy_timeout = 5000')
      if (!isUpToDate(appliedMigrations(db))) {
        // Kysely is loaded only when there is something to migrate (it costs ~100 ms of start-up).
        const { Kysely, SqliteDialect } = await import('kysely')
        await migrateToLatest(new Kysely<unknown>({ dialect: new SqliteDialect({ database: db }) }), 'sqlite')
      }
      const writer = path === ':memory:' ? undefined : startWriter(path)
      return new SqliteBookStore(db, writer)
    } catch (error) {
      db.close()
      throw error
    }
  }

  create(input: BookInput): Promise<Book> {
    const { title, author, year } = input
    return this.write(
      { op: 'insert', title, author, year, titleFolded: foldText(title), authorFolded: foldText(author) },
      () => {}
    )
  }

  async *list(query?: BookQuery): AsyncIterable<Book> {
    if (query) {
      const { sql, parameters } = listStatement('sqlite', query)
      // One page at most (limit <= 1000 + 1), or a filtered list without limit: iterate lazily.
      yield* this.prepare(sql).iterate(...parameters) as IterableIterator<Book>
      return
    }
    let after = 0
    for (;;) {
      const rows = this.statements.page.all(after, LIST_PAGE_SIZE) as unknown as BookRow[]
      for (const [id, title, author, year] of rows) yield { id, title, author, year }
      if (rows.length < LIST_PAGE_SIZE) return
      after = rows[rows.length - 1]![0]
    }
  }

  async count(filter: BookFilter): Promise<number> {
    const { sql, parameters } = countStatement('sqlite', filter)
    return (this.prepare(sql).get(...parameters) as { total: number }).total
  }

  async get(id: number): Promise<VersionedBook | undefined> {
    const cached = this.cache.get(id)
    if (cached !== undefined) return cached
    const book = this.statements.get.get(id)
    if (book !== undefined) this.remember(book)
    return book
  }

  update(id: number, patch: BookPatch): Promise<VersionedBook | undefined> {
    return this.write<VersionedBook | undefined>({ op: 'update', id, values: patchValues(patch) }, (book) =>
      book === undefined ? this.cache.delete(id) : this.cache.has(id) && this.cache.set(id, book)
    )
  }

  /**
   * The compare and the write are one statement, run inside the group-commit transaction like
   * every write; when it changes nothing, the existence check runs in the same transaction, so
   * no other write can come between them (SQLite has one writer: the writer's connection).
   */
  updateIfVersion(id: number, version: number, patch: BookPatch): Promise<VersionedBook | 'missing' | 'stale'> {
    return this.write<VersionedBook | 'missing' | 'stale'>(
      { op: 'updateIfVersion', id, version, values: patchValues(patch) },
      (result) => (result === 'missing' ? this.cache.delete(id) : result !== 'stale' && this.cache.has(id) && this.cache.set(id, result))
    )
  }

  delete(id: number): Promise<boolean> {
    return this.write<boolean>({ op: 'delete', id }, () => this.cache.delete(id))
  }

  deleteIfVersion(id: number, version: number): Promise<'deleted' | 'missing' | 'stale'> {
    return this.write<'deleted' | 'missing' | 'stale'>({ op: 'deleteIfVersion', id, version }, (result) =>
      result === 'stale' ? undefined : this.cache.delete(id)
    )
  }

  async ping(): Promise<void> {
    // Not ready when the writer thread died: writes would all fail.
    if (this.broken) throw this.broken
    this.statements.ping.get()
  }

  async close(): Promise<void> {
    if (this.writer) {
      // Finish every queued and in-flight write, then let the thread close its connection.
      while (!this.broken && (this.inFlight || this.queue.length > 0)) {
        await new Promise<void>((resolve) => this.idleWaiters.push(resolve))
      }
      if (!this.broken) {
        const exited = new Promise((resolve) => this.writer!.once('exit', resolve))
        this.broken = new Error('the store is closed')
        this.writer.ref() // keep the process alive until the thread has closed its connection
        this.writer.postMessage({ close: true })
        await exited
      }
    } else {
      this.flush()
    }
    this.db.close()
  }

  /** The prepared statement for `sql`, kept for the next query of the same shape. */
  private prepare(sql: string): Database.Statement {
    let statement = this.prepared.get(sql)
    if (!statement) {
      if (this.prepared.size >= PREPARED_QUERIES) this.prepared.delete(this.prepared.keys().next().value!)
      statement = this.db.prepare(sql)
      this.prepared.set(sql, statement)
    }
    return statement
  }

  /** Adds a book read from the file to the read cache, dropping the oldest entry when full. */
  private remember(book: VersionedBook): void {
    if (this.cache.size >= CACHED_BOOKS) this.cache.delete(this.cache.keys().next().value!)
    this.cache.set(book.id, book)
  }

  /**
   * Queues a write for the next group commit; resolves with its result once committed, after
   * `committed(result)` has updated the read cache.
   */
  private write<T>(write: WriteOp, committed: (value: T) => unknown): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      if (this.broken) return reject(this.broken)
      this.queue.push({ write, committed: committed as (value: never) => void, resolve: resolve as (value: never) => void, reject })
      if (!this.scheduled && !this.inFlight) {
        // Gather the writes of this event-loop turn into one batch.
        this.scheduled = true
        setImmediate(() => {
          this.scheduled = false
          this.flush()
        })
      }
    })
  }

  /** Commits the queued writes as one batch: on the writer thread, or here for `:memory:`. */
  private flush(): void {
    if (this.inFlight || this.queue.length === 0 || this.broken) return
    const batch = this.queue
    this.queue = []
    if (this.writer) {
      this.inFlight = batch
      this.writer.ref() // a write in flight keeps the process alive until it is answered
      this.writer.postMessage({ batch: batch.map((job) => job.write) })
      return
    }
    let outcomes: WriteOutcome[]
    try {
      outcomes = this.commit!(batch.map((job) => job.write))
    } catch (error) {
      // The commit itself failed: nothing of the batch is durable.
      for (const job of batch) job.reject(error)
      return
    }
    settle(batch, outcomes)
  }

  /** The writer thread answered the batch in flight: settle it, then send the next one at once. */
  private committed(reply: WriterReply): void {
    const batch = this.inFlight
    this.inFlight = undefined
    this.writer!.unref()
    if (batch) {
      if ('failed' in reply) {
        const error = toError(reply.failed)
        for (const job of batch) job.reject(error)
      } else settle(batch, reply.outcomes)
    }
    this.flush()
    if (!this.inFlight && this.queue.length === 0) this.wakeIdleWaiters()
  }

  /** The writer thread died: every pending and later write fails. */
  private fail(error: Error): void {
    if (this.broken) return
    this.broken = error
    for (const job of [...(this.inFlight ?? []), ...this.queue]) job.reject(error)
    this.inFlight = undefined
    this.queue = []
    this.wakeIdleWaiters()
  }

  private wakeIdleWaiters(): void {
    const waiters = this.idleWaiters
    this.idleWaiters = []
    for (const wake of waiters) wake()
  }
}

/** Settles each job with its outcome; a committed one first updates the read cache. */
function settle(batch: WriteJob[], outcomes: WriteOutcome[]): void {
  batch.forEach((job, index) => {
    const outcome = outcomes[index]!
    if (outcome.ok) {
      job.committed(outcome.value as never)
      job.resolve(outcome.value as never)
    } else job.reject(toError(outcome.error))
  })
}
