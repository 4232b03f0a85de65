import pg from 'pg'
import type { Book } from '../../book/schema.js'
import { insertValues } from '../book-sql.js'
import { noteConflict, type BookTransfer, type ImportRow, type StoreOutcome } from '../book-transfer.js'
import { pagesById } from '../list-pages.js'
import { types } from './connection.js'
import { STATEMENTS, columnArrays } from './statements.js'

/**
 * {@link BookTransfer} on PostgreSQL, through one connection of its own: an export is one
 * `REPEATABLE READ READ ONLY` transaction (one snapshot), an import one transaction of
 * multi-row `INSERT … SELECT FROM unnest(…)` statements, one per batch.
 */
export class PostgresBookTransfer implements BookTransfer {
  private constructor(private readonly client: pg.Client) {}

  /**
   * Connects to `url` (the schema must be migrated already).
   *
   * @throws when the database cannot be reached.
   */
  static async open(url: string): Promise<PostgresBookTransfer> {
    const client = new pg.Client({ connectionString: url, application_name: 'book-service-cli', types })
    await client.connect()
    return new PostgresBookTransfer(client)
  }

  async *pages(): AsyncIterable<Book[]> {
    await this.client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY')
    try {
      const readPage = async (after: number, size: number) =>
        (await this.client.query<Book>({ ...STATEMENTS.page, values: [after, size] })).rows
      for await (const page of pagesById(readPage)) if (page.length > 0) yield page
    } finally {
      await this.client.query('COMMIT')
    }
  }

  async store(batches: AsyncIterable<ImportRow[]>, options: { keepIds: boolean; maxId: number }): Promise<StoreOutcome> {
    const outcome: StoreOutcome = { stored: 0, conflicts: [], conflictCount: 0 }
    await this.client.query('BEGIN')
    try {
      if (options.keepIds && options.maxId > 0) {
        // First, so that services creating books meanwhile take ids past the file's. A sequence
        // is not transactional: after a refused import it stays moved (ids are never reused anyway).
        await this.client.query({ ...STATEMENTS.moveIdSequence, values: [options.maxId] })
      }
      for await (const batch of batches) {
        const columns = columnArrays(batch.map(({ row }) => insertValues(row)))
        if (!options.keepIds) {
          // WITH ORDINALITY … ORDER BY: ids are drawn in file order.
          await this.client.query({ ...STATEMENTS.importMany, values: columns })
        } else {
          const { rows } = await this.client.query<{ id: number }>({
            ...STATEMENTS.importManyKeepingIds,
            values: [batch.map(({ row }) => row.id), ...columns]
          })
          const stored = new Set(rows.map((row) => row.id))
          for (const { line, row } of batch) {
            // A stored id counts once: a repeat of it in the same batch is a conflict too.
            if (!stored.delete(row.id!)) noteConflict(outcome, { line, id: row.id! })
          }
        }
        outcome.stored += batch.length
      }
    } catch (error) {
      await this.client.query('ROLLBACK').catch(() => {})
      throw error
    }
    if (outcome.conflictCount > 0) {
      await this.client.query('ROLLBACK')
      return { ...outcome, stored: 0 }
    }
    await this.client.query('COMMIT')
    return outcome
  }

  async close(): Promise<void> {
    await this.client.end()
  }
}
