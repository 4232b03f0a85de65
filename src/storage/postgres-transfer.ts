import pg from 'pg'
import type { Book } from '../schemas/book.js'
import { LIST_PAGE_SIZE } from './book-store.js'
import { noteConflict, type BookTransfer, type ImportRow, type StoreOutcome } from './book-transfer.js'
import { foldText } from './fold.js'
import { types } from './postgres.js'

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
      for (let after = 0; ; ) {
        const { rows } = await this.client.query<Book>({
          name: 'export-page',
          text: 'SELECT id, title, author, year FROM books WHERE id > $1 ORDER BY id LIMIT $2',
          values: [after, LIST_PAGE_SIZE]
        })
        if (rows.length > 0) yield rows
        if (rows.length < LIST_PAGE_SIZE) return
        after = rows[rows.length - 1]!.id
      }
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
        await this.client.query(
          `SELECT setval(seq, GREATEST($1::bigint, COALESCE(pg_sequence_last_value(seq), 1)))
           FROM (SELECT pg_get_serial_sequence('books', 'id')::regclass AS seq) AS s`,
          [options.maxId]
        )
      }
      for await (const batch of batches) {
        const columns = [
          batch.map(({ row }) => row.title),
          batch.map(({ row }) => row.author),
          batch.map(({ row }) => row.year),
          batch.map(({ row }) => foldText(row.title)),
          batch.map(({ row }) => foldText(row.author))
        ]
        if (!options.keepIds) {
          // WITH ORDINALITY … ORDER BY: ids are drawn in file order.
          await this.client.query(
            `INSERT INTO books (title, author, year, title_folded, author_folded)
             SELECT t, a, y, tf, af FROM unnest($1::text[], $2::text[], $3::int[], $4::text[], $5::text[])
               WITH ORDINALITY AS u(t, a, y, tf, af, n) ORDER BY n`,
            columns
          )
        } else {
          const { rows } = await this.client.query<{ id: number }>(
            `INSERT INTO books (id, title, author, year, title_folded, author_folded) OVERRIDING SYSTEM VALUE
             SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::int[], $5::text[], $6::text[])
             ON CONFLICT (id) DO NOTHING RETURNING id`,
            [batch.map(({ row }) => row.id), ...columns]
          )
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
