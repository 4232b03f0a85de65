import type Database from 'better-sqlite3'
import type { Book } from '../../book/schema.js'
import { insertValues } from '../sql/book-statements.js'
import type { Search } from '../../book/search.js'
import { searchStatement } from '../sql/list.js'
import { searchList, type ReadCandidates } from '../sql/search-results.js'
import { inPages, noteConflict, storeInOneTransaction, type BookTransfer, type ImportRow, type StoreOutcome } from '../contracts/book-transfer.js'
import { pagesById } from '../sql/list-pages.js'
import type { ChangeContext } from '../contracts/change-log.js'
import { SQLITE_CONTEXT_STATEMENTS, contextValues } from '../sql/change-log-statements.js'
import { openConnection, openMigrated } from './sqlite-connection.js'
import { prepareStatements, type SqliteStatements } from './sqlite-statements.js'

/**
 * {@link BookTransfer} on a SQLite file, through a connection of its own. It works beside a
 * running service through SQLite's locking: an export is one read transaction (in WAL mode it
 * never blocks the service's writes); an import is one `BEGIN IMMEDIATE` write transaction, so
 * the service's group commits wait for it (up to their 5 s busy timeout) and then go on.
 */
export class SqliteBookTransfer implements BookTransfer {
  /** Prepared on first use (an export's file may not hold the books table yet when it is opened). */
  private prepared: SqliteStatements | undefined

  private constructor(private readonly db: Database.Database) {}

  private get statements() {
    return (this.prepared ??= prepareStatements(this.db))
  }

  /**
   * Opens the existing database file at `path` (WAL, `synchronous=FULL`, 5 s busy timeout).
   *
   * @throws when the file does not exist or is not a database.
   */
  static open(path: string): SqliteBookTransfer {
    return new SqliteBookTransfer(openConnection(path, { fileMustExist: true }))
  }

  /**
   * Opens the database file at `path`, creating it when missing, and applies pending migrations
   * first (`import`; sqlite-connection.ts: `openMigrated`).
   *
   * @throws when the file cannot be created or opened, or a migration fails.
   */
  static async openMigrated(path: string): Promise<SqliteBookTransfer> {
    return new SqliteBookTransfer(await openMigrated(path))
  }

  async *pages(): AsyncIterable<Book[]> {
    // One read transaction for every page: one snapshot, whatever the service writes meanwhile.
    this.db.exec('BEGIN')
    try {
      for await (const page of pagesById(this.statements.page)) if (page.length > 0) yield page
    } finally {
      this.db.exec('COMMIT')
    }
  }

  async *searchPages(search: Search): AsyncIterable<Book[]> {
    this.db.exec('BEGIN')
    try {
      const read: ReadCandidates = async (pieces, afterId, size) => {
        const { sql, parameters } = await searchStatement('sqlite', { search }, pieces, afterId, size)
        return this.db.prepare(sql).all(...parameters) as Book[]
      }
      yield* inPages(await searchList({ search }, search, read))
    } finally {
      this.db.exec('COMMIT')
    }
  }

  /** The change-log rows of the import are stamped with `context` before the commit (`ChangeContext`). */
  store(batches: AsyncIterable<ImportRow[]>, options: { keepIds: boolean }, context: ChangeContext): Promise<StoreOutcome> {
    // AUTOINCREMENT keeps sqlite_sequence at the largest id ever stored, explicit ones included,
    // so with --keep-ids the sequence moves past the file's ids by itself.
    const { insert, insertKeepingId } = this.statements
    const db = this.db
    let lastSeq = 0
    return storeInOneTransaction(
      {
        begin: async () => {
          db.exec('BEGIN IMMEDIATE')
          lastSeq = db.prepare(SQLITE_CONTEXT_STATEMENTS.lastSeq).pluck().get() as number
        },
        storeBatch: async (batch, outcome) => {
          for (const { line, row } of batch) {
            const values = insertValues(row)
            if (!options.keepIds) insert.run(...values)
            else if (insertKeepingId.run(row.id!, ...values).changes === 0) noteConflict(outcome, { line, id: row.id! })
          }
        },
        commit: async () => {
          db.prepare(SQLITE_CONTEXT_STATEMENTS.stamp).run(...contextValues(context), lastSeq)
          db.exec('COMMIT')
        },
        rollback: async () => {
          if (db.inTransaction) db.exec('ROLLBACK')
        }
      },
      batches
    )
  }

  async close(): Promise<void> {
    this.db.close()
  }
}
