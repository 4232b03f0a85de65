import assert from 'node:assert/strict'
import { join } from 'node:path'
import { describe, test } from 'node:test'
import Database from 'better-sqlite3'
import pg from 'pg'
import { parseSearch, searchForm } from '../../../src/book/search.js'
import type { Book } from '../../../src/book/schema.js'
import type { Engine } from '../../../src/storage/contracts/engine.js'
import type { Database as Storage } from '../../../src/storage/contracts/database.js'
import { UNKNOWN_CHANGE_CONTEXT } from '../../../src/storage/contracts/change-log.js'
import { PostgresDatabase } from '../../../src/storage/postgres/postgres-database.js'
import { SqliteDatabase } from '../../../src/storage/sqlite/sqlite-database.js'
import { createPostgresDatabase, engines } from '../../support/engines.js'
import { removeDirectory, temporaryDirectory } from '../../support/server.js'

/**
 * Migration 0015's `title_word_starts` (docs/search.md "How a page is read"), on both engines: it
 * holds exactly the keys of every book's title, kept by the triggers through creates (one at a
 * time and many in one group commit), updates and deletes, and filled for the books already
 * there when the migration runs (on PostgreSQL by the online backfill).
 */
const TITLES = [
  'The Left Hand of Darkness',
  'Cien años de soledad',
  'Øe, the "quoted" the—the',
  'Война и мир',
  'C++ in 21 days: a/b',
  '📚 Books & more 📚 books',
  'A very long word: antidisestablishmentarianism',
  // The longest title there is (500 code points), with word starts at its end.
  `${'x'.repeat(488)} tail end it`
]

/** The keys the rule gives a title: its search form from each place after a character outside a-z and 0-9, 8 characters. */
function keysOf(title: string): string[] {
  const form = [...searchForm(title)]
  const keys = new Set<string>()
  form.forEach((_, at) => {
    if (at === 0 || !/[a-z0-9]/.test(form[at - 1]!)) keys.add(form.slice(at, at + 8).join(''))
  })
  return [...keys]
}

/** What the table should hold for `books`, as `id key` lines, sorted. */
function expected(books: readonly Book[]): string[] {
  return books.flatMap((book) => keysOf(book.title).map((key) => `${book.id} ${key}`)).sort()
}

/** A store on a database of its own, reopened on the same database as often as asked. */
async function scratch(engine: Engine) {
  if (engine === 'sqlite') {
    const directory = temporaryDirectory()
    const path = join(directory, 'books.db')
    return {
      open: (): Promise<Storage> => SqliteDatabase.open(path),
      rows: async (statement: string) => {
        const db = new Database(path)
        try {
          return db.prepare(statement).all() as Array<Record<string, unknown>>
        } finally {
          db.close()
        }
      },
      exec: async (statements: string) => {
        const db = new Database(path)
        db.exec(statements)
        db.close()
      },
      drop: async () => removeDirectory(directory)
    }
  }
  const database = await createPostgresDatabase()
  const client = async <T>(work: (client: pg.Client) => Promise<T>) => {
    const connection = new pg.Client({ connectionString: database.url })
    await connection.connect()
    try {
      return await work(connection)
    } finally {
      await connection.end()
    }
  }
  return {
    open: (): Promise<Storage> => PostgresDatabase.open(database.url, { poolSize: 2, startupTimeoutMs: 0 }),
    rows: (statement: string) => client(async (connection) => (await connection.query(statement)).rows as Array<Record<string, unknown>>),
    exec: (statements: string) => client(async (connection) => void (await connection.query(statements))),
    drop: () => database.drop()
  }
}

/** Undoes migration 0015 and those after it (as a database of the release before it), keeping the books. */
const UNDO: Record<Engine, string> = {
  sqlite: `DROP TRIGGER books_title_word_starts_insert; DROP TRIGGER books_title_word_starts_update; DROP TRIGGER books_title_word_starts_delete;
    DROP TABLE title_word_starts; DROP TABLE online_backfills; DROP TABLE title_positions;
    DELETE FROM kysely_migration WHERE name >= '0015_title_word_starts'; DELETE FROM schema_compatibility WHERE migration >= '0015_title_word_starts'`,
  postgres: `DROP TABLE title_word_starts; DROP TABLE online_backfills;
    DROP FUNCTION books_title_word_starts_insert() CASCADE; DROP FUNCTION books_title_word_starts_update() CASCADE;
    DROP FUNCTION books_title_word_starts_delete() CASCADE; DROP FUNCTION title_word_start_keys(text);
    DELETE FROM kysely_migration WHERE name >= '0015_title_word_starts'; DELETE FROM schema_compatibility WHERE migration >= '0015_title_word_starts'`
}

const TABLE = 'SELECT book_id, key FROM title_word_starts'

async function tableLines(rows: Promise<Array<Record<string, unknown>>>): Promise<string[]> {
  return (await rows).map((row) => `${Number(row.book_id)} ${String(row.key)}`).sort()
}

async function allBooks(storage: Storage): Promise<Book[]> {
  const books: Book[] = []
  for await (const book of storage.books.list()) books.push(book as Book)
  return books
}

for (const { engine, skip } of engines) {
  describe(`title_word_starts (migration 0015) [${engine}]`, { skip }, () => {
    test('the triggers keep it exact through creates, a group commit, updates and deletes', async () => {
      const database = await scratch(engine)
      const storage = await database.open()
      try {
        for (const title of TITLES.slice(0, 3)) await storage.books.create({ title, author: 'Someone', year: 2000 }, UNKNOWN_CHANGE_CONTEXT)
        // Many at once: the creates of one group commit are one INSERT.
        await Promise.all(TITLES.slice(3).map((title) => storage.books.create({ title, author: 'Someone', year: 2001 }, UNKNOWN_CHANGE_CONTEXT)))
        assert.deepEqual(await tableLines(database.rows(TABLE)), expected(await allBooks(storage)))
        await storage.books.update(1, { title: 'Darkness, the left hand of it' }, UNKNOWN_CHANGE_CONTEXT)
        await storage.books.update(2, { author: 'Another' }, UNKNOWN_CHANGE_CONTEXT)
        await storage.books.delete(3, UNKNOWN_CHANGE_CONTEXT)
        const books = await allBooks(storage)
        assert.equal(books.length, TITLES.length - 1)
        assert.deepEqual(await tableLines(database.rows(TABLE)), expected(books))
      } finally {
        await storage.close()
        await database.drop()
      }
    })

    test('a database with books from before 0015 gets every key at start-up, and the rank is read from it', async () => {
      const database = await scratch(engine)
      try {
        let storage = await database.open()
        for (const title of TITLES) await storage.books.create({ title, author: 'Someone', year: 2000 }, UNKNOWN_CHANGE_CONTEXT)
        await storage.close()
        await database.exec(UNDO[engine])
        storage = await database.open()
        try {
          const books = await allBooks(storage)
          assert.deepEqual(await tableLines(database.rows(TABLE)), expected(books))
          assert.deepEqual(await database.rows('SELECT done FROM online_backfills'), [{ done: engine === 'sqlite' ? 1 : true }])
          const search = async (q: string) => {
            const titles: string[] = []
            for await (const book of storage.books.list({ search: parseSearch(q)! })) titles.push((book as Book).title)
            return titles
          }
          // A one-letter term has no trigram: its ranks are read one by one, "a title word starts with it" from the table.
          assert.deepEqual(await search('b'), ['C++ in 21 days: a/b', '📚 Books & more 📚 books', 'A very long word: antidisestablishmentarianism'])
          await database.exec('DELETE FROM title_word_starts WHERE book_id = 5')
          assert.deepEqual(await search('b'), ['📚 Books & more 📚 books', 'A very long word: antidisestablishmentarianism'], 'the rank comes from the table')
        } finally {
          await storage.close()
        }
      } finally {
        await database.drop()
      }
    })
  })
}
