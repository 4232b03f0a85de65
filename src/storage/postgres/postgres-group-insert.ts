import type { Book, BookInput } from '../../book/schema.js'
import { StorageUnavailableError } from '../contracts/database.js'
import { insertValues } from '../sql/book-statements.js'
import type { ChangeContext } from '../contracts/change-log.js'
import { contextObject } from '../sql/change-log-statements.js'
import { STATEMENTS, columnArrays, type Statement } from './postgres-statements.js'

/** A create waiting for its group insert. */
interface PendingCreate {
  input: BookInput
  context: ChangeContext
  resolve: (book: Book) => void
  reject: (error: unknown) => void
}

/**
 * The group insert of the PostgreSQL store: the creates that arrive in one event-loop turn are
 * stored by one multi-row `INSERT … SELECT FROM unnest(…) RETURNING` (one statement, one commit,
 * one WAL flush), and each resolves only once that statement has committed. Ids are drawn in
 * the batch's order. When the batch fails for another reason than an unreachable database, each
 * of its books is inserted alone, so one failing row fails only its own request.
 */
export class GroupInsert {
  private pending: PendingCreate[] = []

  /** @param query runs one statement (see `statementRunner`). */
  constructor(private readonly query: <Row extends object>(statement: Statement, values: unknown[]) => Promise<Row[]>) {}

  /**
   * Stores `input` with the next group insert; resolves with the stored book once committed. Its
   * change-log row carries `context` (each row of the insert its own: `ChangeContext`).
   */
  create(input: BookInput, context: ChangeContext): Promise<Book> {
    return new Promise<Book>((resolve, reject) => {
      if (this.pending.length === 0) setImmediate(() => void this.insertPending())
      this.pending.push({ input, context, resolve, reject })
    })
  }

  /** Inserts the creates gathered so far as one statement and settles each of them. */
  private async insertPending(): Promise<void> {
    const batch = this.pending
    this.pending = []
    try {
      const books = await this.insertBooks(batch)
      batch.forEach((pending, index) => pending.resolve(books[index]!))
    } catch (error) {
      if (batch.length === 1 || error instanceof StorageUnavailableError) {
        for (const pending of batch) pending.reject(error)
        return
      }
      await Promise.all(batch.map((pending) =>
        this.insertBooks([pending]).then(([book]) => pending.resolve(book!), pending.reject)))
    }
  }

  /**
   * Inserts `inputs` in one statement and returns the stored books in the same order: ids come
   * from the identity sequence in row order (`ORDER BY n`), so the i-th smallest id returned is
   * the i-th create's.
   */
  private async insertBooks(creates: PendingCreate[]): Promise<Book[]> {
    const contexts = JSON.stringify(creates.map((pending) => contextObject(pending.context)))
    const rows = await this.query<Book>(STATEMENTS.insertMany, [...columnArrays(creates.map((pending) => insertValues(pending.input))), contexts])
    return rows.sort((a, b) => a.id - b.id)
  }
}
