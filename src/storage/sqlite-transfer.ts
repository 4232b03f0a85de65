import Database from 'better-sqlite3'
import type { Book } from '../schemas/book.js'
import { LIST_PAGE_SIZE } from './book-store.js'
import { noteConflict, type BookTransfer, type ImportRow, type StoreOutcome } from './book-transfer.js'
import { foldText } from './fold.js'

/** A books row in raw mode: id, title, author, year. */
type BookRow = [number, string, string, number]

/**
 * {@link BookTransfer} on a SQLite file, through a connection of its own. It works beside a
 * running service through SQLite's locking: an export is one read transaction (in WAL mode it
 * never blocks the service's writes); an import is one `BEGIN IMMEDIATE` write transaction, so
 * the service's group commits wait for it (up to their 5 s busy timeout) and then go on.
 */
export class SqliteBookTransfer implements BookTransfer {
  private constructor(private readonly db: Database.Database) {}

  /**
   * Opens the existing database file at `path` (WAL, `synchronous=FULL`, 5 s busy timeout).
   *
   * @throws when the file does not exist or is not a database.
   */
  static open(path: string): SqliteBookTransfer {
    const db = new Database(path, { fileMustExist: true })
    try {
      db.pragma('journal_mode = WAL')
      db.pragma('synchronous = FULL')
      db.pragma('busy_timeout = 5000')
      return new SqliteBookTransfer(db)
    } catch (error) {
      db.close()
      throw error
    }
  }

  async *pages(): AsyncIterable<Book[]> {
    const page = this.db
      .prepare<[number, number], BookRow>('SELECT id, title, author, year FROM books WHERE id > ? ORDER BY id LIMIT ?')
      .raw(true)
    // One read transaction for every page: one snapshot, whatever the service writes meanwhile.
    this.db.exec('BEGIN')
    try {
      for (let after = 0; ; ) {
        const rows = page.all(after, LIST_PAGE_SIZE) as unknown as BookRow[]
        if (rows.length > 0) yield rows.map(([id, title, author, year]) => ({ id, title, author, year }))
        if (rows.length < LIST_PAGE_SIZE) return
        after = rows[rows.length - 1]![0]
      }
    } finally {
      this.db.exec('COMMIT')
    }
  }

  async store(batches: AsyncIterable<ImportRow[]>, options: { keepIds: boolean }): Promise<StoreOutcome> {
    const outcome: StoreOutcome = { stored: 0, conflicts: [], conflictCount: 0 }
    // AUTOINCREMENT keeps sqlite_sequence at the largest id ever stored, explicit ones included,
    // so with --keep-ids the sequence moves past the file's ids by itself.
    const insert = options.keepIds
      ? this.db.prepare('INSERT OR IGNORE INTO books (id, title, author, year, title_folded, author_folded) VALUES (?, ?, ?, ?, ?, ?)')
      : this.db.prepare('INSERT INTO books (title, author, year, title_folded, author_folded) VALUES (?, ?, ?, ?, ?)')
    this.db.exec('BEGIN IMMEDIATE')
    try {
      for await (const batch of batches) {
        for (const { line, row } of batch) {
          const values = [row.title, row.author, row.year, foldText(row.title), foldText(row.author)]
          if (!options.keepIds) insert.run(...values)
          else if (insert.run(row.id, ...values).changes === 0) noteConflict(outcome, { line, id: row.id! })
          outcome.stored++
        }
      }
    } catch (error) {
      this.db.exec('ROLLBACK')
      throw error
    }
    if (outcome.conflictCount > 0) {
      this.db.exec('ROLLBACK')
      return { ...outcome, stored: 0 }
    }
    this.db.exec('COMMIT')
    return outcome
  }

  async close(): Promise<void> {
    this.db.close()
  }
}
