import { closeSync, mkdirSync, openSync } from 'node:fs'
import { dirname } from 'node:path'
import Database from 'better-sqlite3'
import { Kysely, SqliteDialect } from 'kysely'
import type { Book, BookInput, BookPatch } from '../schemas/book.js'
import { LIST_PAGE_SIZE, type BookFilter, type BookQuery, type BookStore, type VersionedBook } from './book-store.js'
import { countStatement, listStatement } from './book-query-sql.js'
import { foldText } from './fold.js'
import { migrateToLatest } from './migrations.js'

interface WriteJob {
  run: () => unknown
  resolve: (value: never) => void
  reject: (error: unknown) => void
}

const COLUMNS = 'id, title, author, year'
const VERSIONED = `${COLUMNS}, version`

/** Most distinct list/count statements kept prepared (one per shape of query, not per value). */
const PREPARED_QUERIES = 64

/** Patch values in the order of the update statements: title, folded title, author, folded author, year. */
function patchValues(patch: BookPatch): [string | null, string | null, string | null, string | null, number | null] {
  return [
    patch.title ?? null,
    patch.title === undefined ? null : foldText(patch.title),
    patch.author ?? null,
    patch.author === undefined ? null : foldText(patch.author),
    patch.year ?? null
  ]
}

/** The SET clause of every update: present fields replace, absent ones keep; the version goes up. */
const SET_PATCH = `title = COALESCE(?, title), title_folded = COALESCE(?, title_folded),
  author = COALESCE(?, author), author_folded = COALESCE(?, author_folded),
  year = COALESCE(?, year), version = version + 1`

/**
 * The embedded SQLite {@link BookStore} (better-sqlite3): WAL journal with `synchronous=FULL`,
 * `AUTOINCREMENT` ids, prepared statements.
 *
 * Writes use group commit: the writes that arrive within one event-loop turn run in one
 * transaction (each in its own savepoint) and share one fsync; each promise resolves only after
 * that commit returned, so no write is acknowledged before it is on disk.
 */
export class SqliteBookStore implements BookStore {
  private queue: WriteJob[] = []
  private readonly statements
  private readonly prepared = new Map<string, Database.Statement>()

  private constructor(private readonly db: Database.Database) {
    this.statements = {
      insert: db.prepare<[string, string, number, string, string], Book>(
        `INSERT INTO books (title, author, year, title_folded, author_folded) VALUES (?, ?, ?, ?, ?) RETURNING ${COLUMNS}`
      ),
      page: db.prepare<[number, number], Book>(`SELECT ${COLUMNS} FROM books WHERE id > ? ORDER BY id LIMIT ?`),
      get: db.prepare<[number], VersionedBook>(`SELECT ${VERSIONED} FROM books WHERE id = ?`),
      update: db.prepare<[...ReturnType<typeof patchValues>, number], VersionedBook>(
        `UPDATE books SET ${SET_PATCH} WHERE id = ? RETURNING ${VERSIONED}`
      ),
      updateIfVersion: db.prepare<[...ReturnType<typeof patchValues>, number, number], VersionedBook>(
        `UPDATE books SET ${SET_PATCH} WHERE id = ? AND version = ? RETURNING ${VERSIONED}`
      ),
      delete: db.prepare<[number]>('DELETE FROM books WHERE id = ?'),
      deleteIfVersion: db.prepare<[number, number]>('DELETE FROM books WHERE id = ? AND version = ?'),
      exists: db.prepare<[number], { id: number }>('SELECT id FROM books WHERE id = ?'),
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
      const kysely = new Kysely<unknown>({ dialect: new SqliteDialect({ database: db }) })
      await migrateToLatest(kysely, 'sqlite')
      return new SqliteBookStore(db)
    } catch (error) {
      db.close()
      throw error
    }
  }

  create(input: BookInput): Promise<Book> {
    return this.write(
      () =>
        this.statements.insert.get(input.title, input.author, input.year, foldText(input.title), foldText(input.author)) as Book
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
      const page = this.statements.page.all(after, LIST_PAGE_SIZE)
      yield* page
      if (page.length < LIST_PAGE_SIZE) return
      after = page[page.length - 1]!.id
    }
  }

  async count(filter: BookFilter): Promise<number> {
    const { sql, parameters } = countStatement('sqlite', filter)
    return (this.prepare(sql).get(...parameters) as { total: number }).total
  }

  async get(id: number): Promise<VersionedBook | undefined> {
    return this.statements.get.get(id)
  }

  update(id: number, patch: BookPatch): Promise<VersionedBook | undefined> {
    return this.write(() => this.statements.update.get(...patchValues(patch), id))
  }

  /**
   * The compare and the write are one statement, run inside the group-commit transaction like
   * every write; when it changes nothing, the existence check runs in the same savepoint, so
   * no other write can come between them (SQLite has one writer: this connection).
   */
  updateIfVersion(id: number, version: number, patch: BookPatch): Promise<VersionedBook | 'missing' | 'stale'> {
    return this.write(
      () => this.statements.updateIfVersion.get(...patchValues(patch), id, version) ?? this.missingOrStale(id)
    )
  }

  delete(id: number): Promise<boolean> {
    return this.write(() => this.statements.delete.run(id).changes > 0)
  }

  deleteIfVersion(id: number, version: number): Promise<'deleted' | 'missing' | 'stale'> {
    return this.write(() =>
      this.statements.deleteIfVersion.run(id, version).changes > 0 ? 'deleted' : this.missingOrStale(id)
    )
  }

  async ping(): Promise<void> {
    this.statements.ping.get()
  }

  async close(): Promise<void> {
    this.flush()
    this.db.close()
  }

  /** Why a conditional write changed nothing: the book is gone, or its version moved on. */
  private missingOrStale(id: number): 'missing' | 'stale' {
    return this.statements.exists.get(id) ? 'stale' : 'missing'
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

  /** Queues a write for the next group commit; resolves with its result once committed. */
  private write<T>(run: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ run, resolve: resolve as (value: never) => void, reject })
      if (this.queue.length === 1) setImmediate(() => this.flush())
    })
  }

  /** Runs every queued write in one transaction, one savepoint each, then settles them. */
  private flush(): void {
    const batch = this.queue
    if (batch.length === 0) return
    this.queue = []
    const outcomes: Array<{ ok: true; value: unknown } | { ok: false; error: unknown }> = []
    try {
      this.db.transaction(() => {
        for (const job of batch) {
          try {
            outcomes.push({ ok: true, value: this.db.transaction(job.run)() })
          } catch (error) {
            outcomes.push({ ok: false, error })
          }
        }
      })()
    } catch (error) {
      // The commit itself failed: nothing of the batch is durable.
      for (const job of batch) job.reject(error)
      return
    }
    batch.forEach((job, index) => {
      const outcome = outcomes[index]!
      if (outcome.ok) job.resolve(outcome.value as never)
      else job.reject(outcome.error)
    })
  }
}
