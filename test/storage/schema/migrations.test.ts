import assert from 'node:assert/strict'
import { join } from 'node:path'
import { after, describe, test } from 'node:test'
import Sqlite from 'better-sqlite3'
import pg from 'pg'
import type { Database } from '../../../src/storage/contracts/database.js'
import { PostgresDatabase } from '../../../src/storage/postgres/postgres-database.js'
import { SqliteDatabase } from '../../../src/storage/sqlite/sqlite-database.js'
import { authHeaders, buildTestApp } from '../../support/app.js'
import { createPostgresDatabase, postgresSkipReason } from '../../support/engines.js'
import { removeDirectory, startServer, temporaryDirectory } from '../../support/server.js'
import { processSkipReason } from '../../support/scope.js'

const auth = authHeaders()

/** Books written by a service that only knew migration 0001. */
const OLD_BOOKS = [
  ['ÉTÉ à Paris', 'Émile ZOLA', 1900],
  ['Ficciones', 'Jorge Luis BORGES', 1944],
  ['Мастер и Маргарита', 'Михаил Булгаков', 1967]
] as const

/** The schema and migration history exactly as migration 0001 left them (Kysely's own tables). */
const KYSELY_TABLES = [
  'CREATE TABLE kysely_migration (name varchar(255) NOT NULL PRIMARY KEY, timestamp varchar(255) NOT NULL)',
  'CREATE TABLE kysely_migration_lock (id varchar(255) NOT NULL PRIMARY KEY, is_locked integer DEFAULT 0 NOT NULL)',
  "INSERT INTO kysely_migration_lock (id, is_locked) VALUES ('migration_lock', 0)",
  "INSERT INTO kysely_migration (name, timestamp) VALUES ('0001_create_books', '2026-01-01T00:00:00.000Z')"
]

/** Migration 0002 on existing books: folded forms filled in, version 1, filters, sorts and ETags work. */
async function assertMigrated(database: Database) {
  const app = await buildTestApp({}, database)
  try {
    const titles = async (url: string) => {
      const response = await app.inject({ url, headers: auth })
      assert.equal(response.statusCode, 200, response.body)
      return (response.json().data as Array<{ title: string }>).map((book) => book.title)
    }
    assert.deepEqual(await titles('/books'), OLD_BOOKS.map(([title]) => title))
    assert.deepEqual(await titles('/books?author=zola'), ['ÉTÉ à Paris'])
    assert.deepEqual(await titles(`/books?title=${encodeURIComponent('été')}`), ['ÉTÉ à Paris'])
    assert.deepEqual(await titles(`/books?author=${encodeURIComponent('БУЛГАКОВ')}`), ['Мастер и Маргарита'])
    assert.deepEqual(await titles('/books?sort=-author&limit=2'), ['Мастер и Маргарита', 'ÉTÉ à Paris'])
    const read = await app.inject({ url: '/book/1', headers: auth })
    const etag = read.headers.etag as string
    assert.match(etag, /^"[^"]+"$/)
    const update = await app.inject({ method: 'PUT', url: '/book/1', headers: { ...auth, 'if-match': etag }, payload: { year: 1901 } })
    assert.equal(update.statusCode, 200)
    const stale = await app.inject({ method: 'PUT', url: '/book/1', headers: { ...auth, 'if-match': etag }, payload: { year: 1902 } })
    assert.equal(stale.statusCode, 412)
  } finally {
    await app.close()
  }
}

describe('migration 0002 on a database made by 0001', () => {
  const directories: string[] = []
  after(() => directories.forEach(removeDirectory))

  test('SQLite: existing books are folded and versioned', async () => {
    const directory = temporaryDirectory()
    directories.push(directory)
    const path = join(directory, 'books.db')
    const db = new Sqlite(path)
    db.exec(
      'CREATE TABLE books (id integer PRIMARY KEY AUTOINCREMENT, title text NOT NULL, author text NOT NULL, year integer NOT NULL)'
    )
    for (const statement of KYSELY_TABLES) db.exec(statement)
    const insert = db.prepare('INSERT INTO books (title, author, year) VALUES (?, ?, ?)')
    for (const book of OLD_BOOKS) insert.run(...book)
    db.close()
    await assertMigrated(await SqliteDatabase.open(path))
  })

  test('PostgreSQL: existing books are folded and versioned; trigram indexes exist', { skip: postgresSkipReason }, async () => {
    const database = await createPostgresDatabase()
    const client = new pg.Client({ connectionString: database.url })
    try {
      await client.connect()
      await client.query(
        'CREATE TABLE books (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, title text NOT NULL, author text NOT NULL, year integer NOT NULL)'
      )
      for (const statement of KYSELY_TABLES) await client.query(statement)
      for (const book of OLD_BOOKS) await client.query('INSERT INTO books (title, author, year) VALUES ($1, $2, $3)', [...book])
      await assertMigrated(await PostgresDatabase.open(database.url, { poolSize: 2, startupTimeoutMs: 0 }))
      const { rows } = await client.query<{ indexname: string }>(
        "SELECT indexname FROM pg_indexes WHERE tablename = 'books' ORDER BY indexname"
      )
      assert.deepEqual(
        rows.map((row) => row.indexname).filter((name) => name !== 'books_pkey'),
        ['books_author_folded_id', 'books_author_folded_trgm', 'books_author_search_trgm', 'books_title_folded_id', 'books_title_folded_trgm', 'books_title_search_id', 'books_title_search_trgm', 'books_year_id']
      )
    } finally {
      await client.end()
      await database.drop()
    }
  })
})

describe('paging and conditional requests on the real server', { skip: processSkipReason }, () => {
  test('Link paging, filters and If-Match through node dist/start.js', async () => {
    const directory = temporaryDirectory()
    const server = await startServer({ dataDirectory: directory })
    try {
      const headers = { ...auth, 'content-type': 'application/json' }
      for (let i = 0; i < 5; i++) {
        const response = await fetch(`${server.url}/book`, {
          method: 'POST', headers, body: JSON.stringify({ title: `Vol ${i}`, author: 'Same Author', year: 2000 + i })
        })
        assert.equal(response.status, 201)
      }
      const seen: number[] = []
      let next: string | undefined = '/books?author=SAME&sort=-year&limit=2&count=true'
      while (next) {
        const response = await fetch(`${server.url}${next}`, { headers: auth })
        assert.equal(response.status, 200)
        assert.equal(response.headers.get('x-total-count'), '5')
        seen.push(...((await response.json()) as { data: Array<{ year: number }> }).data.map((book) => book.year))
        next = /^<([^>]+)>; rel="next"$/.exec(response.headers.get('link') ?? '')?.[1]
      }
      assert.deepEqual(seen, [2004, 2003, 2002, 2001, 2000])

      const read = await fetch(`${server.url}/book/1`, { headers: auth })
      const etag = read.headers.get('etag')!
      const notModified = await fetch(`${server.url}/book/1`, { headers: { ...auth, 'if-none-match': etag } })
      assert.equal(notModified.status, 304)
      assert.equal(await notModified.text(), '')
      const put = (tag: string) =>
        fetch(`${server.url}/book/1`, { method: 'PUT', headers: { ...headers, 'if-match': tag }, body: '{"year":1}' })
      const [first, second] = await Promise.all([put(etag), put(etag)])
      assert.deepEqual([first.status, second.status].sort(), [200, 412])
      const failed = first.status === 412 ? first : second
      assert.deepEqual(await failed.json(), { status: 412, message: 'Precondition failed', data: null })
      const bad = await fetch(`${server.url}/books?limit=5000`, { headers: auth })
      assert.equal(bad.status, 400)
    } finally {
      assert.equal(await server.stop(), 0)
      removeDirectory(directory)
    }
  })
})
