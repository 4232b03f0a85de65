import assert from 'node:assert/strict'
import { join } from 'node:path'
import { test } from 'node:test'
import Database from 'better-sqlite3'
import pg from 'pg'
import { parseSearch } from '../../../src/book/search.js'
import type { Book } from '../../../src/book/schema.js'
import type { BookStore } from '../../../src/storage/contracts/book-store.js'
import { PostgresDatabase } from '../../../src/storage/postgres/postgres-database.js'
import { SqliteDatabase } from '../../../src/storage/sqlite/sqlite-database.js'
import { createPostgresDatabase, postgresSkipReason } from '../../support/engines.js'
import { removeDirectory, temporaryDirectory } from '../../support/server.js'
import { UNKNOWN_CHANGE_CONTEXT } from '../../../src/storage/contracts/change-log.js'

const BOOKS = [
  { title: 'Cien años de soledad', author: 'Gabriel García Márquez', year: 1967 },
  { title: 'The Left Hand of Darkness', author: 'Ursula K. Le Guin', year: 1969 }
]

async function search(books: BookStore, q: string): Promise<string[]> {
  const titles: string[] = []
  for await (const book of books.list({ search: parseSearch(q)! })) titles.push((book as Book).title)
  return titles
}

/** Undoes migration 0009 (as a database of the release before it), keeping the books. */
const UNDO = {
  sqlite: `DROP TABLE book_search; DROP TRIGGER IF EXISTS book_search_insert; DROP TRIGGER IF EXISTS book_search_update;
    DROP TRIGGER IF EXISTS book_search_delete; DELETE FROM kysely_migration WHERE name = '0009_search_index'`,
  postgres: `ALTER TABLE books DROP COLUMN title_search, DROP COLUMN author_search; DROP FUNCTION book_search_key(text);
    DELETE FROM kysely_migration WHERE name = '0009_search_index'`
}

test('SQLite: a database with books from before 0009 gets the search index at start-up, and it stays exact', async () => {
  const directory = temporaryDirectory()
  const path = join(directory, 'books.db')
  try {
    let storage = await SqliteDatabase.open(path)
    for (const book of BOOKS) await storage.books.create(book, UNKNOWN_CHANGE_CONTEXT)
    await storage.close()
    const db = new Database(path)
    db.exec(UNDO.sqlite)
    db.close()
    storage = await SqliteDatabase.open(path)
    assert.deepEqual(await search(storage.books, 'garcia'), ['Cien años de soledad'])
    assert.deepEqual(await search(storage.books, 'le guin'), ['The Left Hand of Darkness'])
    await storage.books.update(1, { title: 'Crónica de una muerte anunciada' }, UNKNOWN_CHANGE_CONTEXT)
    assert.deepEqual(await search(storage.books, 'cronica garcia'), ['Crónica de una muerte anunciada'])
    assert.deepEqual(await search(storage.books, 'soledad'), [])
    await storage.close()
  } finally {
    removeDirectory(directory)
  }
})

test('PostgreSQL: a database with books from before 0009 gets the search columns and indexes at start-up', { skip: postgresSkipReason }, async () => {
  const database = await createPostgresDatabase()
  try {
    let storage = await PostgresDatabase.open(database.url, { poolSize: 2, startupTimeoutMs: 0 })
    for (const book of BOOKS) await storage.books.create(book, UNKNOWN_CHANGE_CONTEXT)
    await storage.close()
    const client = new pg.Client({ connectionString: database.url })
    await client.connect()
    await client.query(UNDO.postgres)
    await client.end()
    storage = await PostgresDatabase.open(database.url, { poolSize: 2, startupTimeoutMs: 0 })
    assert.deepEqual(await search(storage.books, 'garcia'), ['Cien años de soledad'])
    await storage.books.update(1, { title: 'Crónica de una muerte anunciada' }, UNKNOWN_CHANGE_CONTEXT)
    assert.deepEqual(await search(storage.books, 'cronica garcia'), ['Crónica de una muerte anunciada'])
    await storage.close()
    const check = new pg.Client({ connectionString: database.url })
    await check.connect()
    const { rows } = await check.query<{ indexname: string }>("SELECT indexname FROM pg_indexes WHERE tablename = 'books' AND indexname LIKE '%search_trgm' ORDER BY 1")
    await check.end()
    assert.deepEqual(rows.map((row) => row.indexname), ['books_author_search_trgm', 'books_title_search_trgm'])
  } finally {
    await database.drop()
  }
})
