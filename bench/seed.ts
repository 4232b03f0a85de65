import Database from 'better-sqlite3'
import pg from 'pg'
import { foldText } from '../src/book/fold.js'
import { SqliteDatabase } from '../src/storage/sqlite/sqlite-database.js'
import { createScratchDatabase, type ScratchDatabase } from '../test/support/scratch-database.js'
import { seededBook } from './seeded-book.js'

export { seededBook }

/**
 * Creates the SQLite database at `path` with the service's own migrations (the same code the
 * service runs at start-up), then inserts `count` books with better-sqlite3 in one transaction.
 * The service must not be running on this file. Ids are 1..count.
 */
export async function seedSqlite(path: string, count: number): Promise<void> {
  const storage = await SqliteDatabase.open(path)
  await storage.close()
  const db = new Database(path)
  try {
    db.pragma('journal_mode = WAL')
    const insert = db.prepare<[string, string, number, string, string]>(
      'INSERT INTO books (title, author, year, title_folded, author_folded) VALUES (?, ?, ?, ?, ?)'
    )
    db.transaction(() => {
      for (let i = 1; i <= count; i++) {
        const book = seededBook(i)
        insert.run(book.title, book.author, book.year, foldText(book.title), foldText(book.author))
      }
    })()
    db.exec('ANALYZE')
    db.pragma('wal_checkpoint(TRUNCATE)')
  } finally {
    db.close()
  }
}

/**
 * Empties the `books` table of the PostgreSQL database at `url` (ids restart at 1) and inserts
 * `count` books (the same as the SQLite ones, folded columns included) in one statement. The table must exist (the service migrates it at start-up).
 */
export async function seedPostgres(url: string, count: number): Promise<void> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    await client.query('TRUNCATE books RESTART IDENTITY')
    const books = Array.from({ length: count }, (_, index) => seededBook(index + 1))
    await client.query(
      `INSERT INTO books (title, author, year, title_folded, author_folded)
       SELECT * FROM unnest($1::text[], $2::text[], $3::int[], $4::text[], $5::text[])`,
      [
        books.map((book) => book.title), books.map((book) => book.author), books.map((book) => book.year),
        books.map((book) => foldText(book.title)), books.map((book) => foldText(book.author))
      ]
    )
    await client.query('ANALYZE books')
  } finally {
    await client.end()
  }
}

/** The PostgreSQL server the benchmark tries (`BENCH_POSTGRES_URL` overrides). */
export const POSTGRES_ADMIN_URL = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'

/**
 * Creates a fresh database for this run on the PostgreSQL server, or explains why it cannot.
 *
 * @returns `{ url, drop }`, or `{ skip }` with the reason PostgreSQL is not benchmarked.
 */
export async function createPostgresDatabase(): Promise<ScratchDatabase | { skip: string }> {
  try {
    return await createScratchDatabase(POSTGRES_ADMIN_URL, 'books_bench')
  } catch (error) {
    return { skip: `PostgreSQL not usable at ${POSTGRES_ADMIN_URL} (${(error as Error).message})` }
  }
}
