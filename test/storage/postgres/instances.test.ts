import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import pg from 'pg'
import { MIGRATION_NAMES } from '../../../src/storage/schema/migrate.js'
import { PostgresDatabase } from '../../../src/storage/postgres/postgres-database.js'
import { call } from '../../support/client.js'
import { createPostgresDatabase, postgresSkipReason, type TestDatabase } from '../../support/engines.js'
import { removeDirectory, startServer, temporaryDirectory, type RunningServer } from '../../support/server.js'
import { UNKNOWN_CHANGE_CONTEXT } from '../../../src/storage/contracts/change-log.js'

/** Rows of one query on `url`, through a connection of its own. */
async function select<Row extends pg.QueryResultRow>(url: string, text: string, values: unknown[] = []): Promise<Row[]> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    return (await client.query<Row>(text, values)).rows
  } finally {
    await client.end()
  }
}

describe('migrations when several instances start at once [postgres]', { skip: postgresSkipReason }, () => {
  test('eight databases opening one empty database at once: all open, the schema is migrated once', async () => {
    const database = await createPostgresDatabase()
    try {
      const databases = await Promise.all(
        Array.from({ length: 8 }, () => PostgresDatabase.open(database.url, { poolSize: 2, startupTimeoutMs: 0 }))
      )
      const created = await Promise.all(
        databases.map((storage, i) => storage.books.create({ title: `T${i}`, author: `A${i}`, year: 2000 + i }, UNKNOWN_CHANGE_CONTEXT))
      )
      assert.equal(new Set(created.map((book) => book.id)).size, 8)
      await Promise.all(databases.map((storage) => storage.close()))
      const applied = await select<{ name: string }>(database.url, 'SELECT name FROM kysely_migration ORDER BY name')
      assert.deepEqual(applied.map((row) => row.name), [...MIGRATION_NAMES])
    } finally {
      await database.drop()
    }
  })
})

describe('three server processes on one PostgreSQL database', { skip: postgresSkipReason }, () => {
  let database: TestDatabase
  let directory: string
  let servers: RunningServer[] = []
  /** The base URLs of the three instances (`/book`, `/books` appended by the tests). */
  let a: string, b: string, c: string

  before(async () => {
    database = await createPostgresDatabase()
    directory = temporaryDirectory()
    // The same database under the three URL forms the service accepts; all three start at once.
    const postgresql = database.url.replace(/^postgres:/, 'postgresql:')
    const urls = [database.url, `${database.url}?sslmode=disable&application_name=books-b`, postgresql]
    servers = await Promise.all(urls.map((url) => startServer({ dataDirectory: directory, env: { DATABASE_URL: url } })))
    ;[a, b, c] = servers.map((server) => server.url) as [string, string, string]
  })

  after(async () => {
    const codes = await Promise.all(servers.map((server) => server.stop('SIGTERM')))
    await database?.drop()
    removeDirectory(directory)
    assert.deepEqual(codes, [0, 0, 0], 'every instance stops cleanly on SIGTERM')
  })

  test('the three started together: each is ready, and the schema was migrated exactly once', async () => {
    for (const url of [a, b, c]) {
      assert.deepEqual((await call(`${url}/readyz`)).body, { status: 200, message: 'OK', data: null })
    }
    const applied = await select<{ name: string }>(database.url, 'SELECT name FROM kysely_migration ORDER BY name')
    assert.deepEqual(applied.map((row) => row.name), [...MIGRATION_NAMES])
  })

  test('300 concurrent creates spread over the three: 300 distinct ids, and every instance lists all 300', async () => {
    const instances = [a, b, c]
    const inputs = Array.from({ length: 300 }, (_, i) => ({ title: `Book ${i}`, author: `Author ${i % 7}`, year: 1900 + (i % 120) }))
    const created = await Promise.all(inputs.map((input, i) => call(`${instances[i % 3]}/book`, 'POST', input)))
    for (const [i, response] of created.entries()) {
      assert.equal(response.status, 201, JSON.stringify(response.body))
      assert.deepEqual(response.body.data, { id: response.body.data.id, ...inputs[i] })
    }
    const ids = created.map((response) => response.body.data.id as number)
    assert.equal(new Set(ids).size, 300, 'ids are distinct')
    const expected = created.map((response) => response.body.data).sort((x, y) => x.id - y.id)
    for (const url of instances) {
      const list = await call(`${url}/books`)
      assert.equal(list.status, 200)
      const mine = list.body.data.filter((book: { id: number }) => ids.includes(book.id))
      assert.deepEqual(mine, expected, `${url} lists all 300, by id ascending`)
    }
  })

  test('an update through one instance is read back through the others', async () => {
    const created = await call(`${a}/book`, 'POST', { title: 'Kindred', author: 'Octavia Butler', year: 1978 })
    const id = created.body.data.id
    const updated = await call(`${b}/book/${id}`, 'PUT', { author: 'Octavia E. Butler', year: 1979 })
    assert.deepEqual(updated.body, {
      status: 200, message: 'Book updated successfully', data: { id, title: 'Kindred', author: 'Octavia E. Butler', year: 1979 }
    })
    for (const url of [a, c]) {
      assert.deepEqual((await call(`${url}/book/${id}`)).body.data, { id, title: 'Kindred', author: 'Octavia E. Butler', year: 1979 })
    }
    await call(`${c}/book/${id}`, 'PUT', { title: 'Kindred (2nd ed.)' })
    assert.equal((await call(`${a}/book/${id}`)).body.data.title, 'Kindred (2nd ed.)')
  })

  test('a delete through one instance gives 404 through the others, and the id is not reused', async () => {
    const created = await call(`${a}/book`, 'POST', { title: 'Solaris', author: 'Stanisław Lem', year: 1961 })
    const id = created.body.data.id
    assert.equal((await call(`${c}/book/${id}`)).status, 200)
    assert.deepEqual((await call(`${b}/book/${id}`, 'DELETE')).body, { status: 200, message: 'Book deleted successfully', data: null })
    const gone = { status: 404, message: 'Book not found', data: null }
    assert.deepEqual((await call(`${a}/book/${id}`)).body, gone)
    assert.deepEqual((await call(`${c}/book/${id}`)).body, gone)
    assert.deepEqual((await call(`${c}/book/${id}`, 'PUT', { year: 1962 })).body, gone)
    assert.deepEqual((await call(`${a}/book/${id}`, 'DELETE')).body, gone)
    const next = await call(`${c}/book`, 'POST', { title: 'Fiasco', author: 'Stanisław Lem', year: 1986 })
    assert.ok(next.body.data.id > id, 'a new book gets a higher id')
  })

  test('concurrent partial updates of different fields through different instances all survive (20 rounds)', async () => {
    for (let round = 0; round < 20; round++) {
      const created = await call(`${a}/book`, 'POST', { title: 'old title', author: 'old author', year: 1000 })
      const id = created.body.data.id
      const results = await Promise.all([
        call(`${a}/book/${id}`, 'PUT', { title: `title ${round}` }),
        call(`${b}/book/${id}`, 'PUT', { author: `author ${round}` }),
        call(`${c}/book/${id}`, 'PUT', { year: 2000 + round })
      ])
      assert.deepEqual(results.map((result) => result.status), [200, 200, 200])
      const want = { id, title: `title ${round}`, author: `author ${round}`, year: 2000 + round }
      for (const url of [a, b, c]) assert.deepEqual((await call(`${url}/book/${id}`)).body.data, want, `round ${round}`)
    }
  })

  test('a delete racing updates through other instances never resurrects the book (20 rounds)', async () => {
    for (let round = 0; round < 20; round++) {
      const created = await call(`${a}/book`, 'POST', { title: 'doomed', author: 'someone', year: 1999 })
      const id = created.body.data.id
      const [deleted, ...updates] = await Promise.all([
        call(`${a}/book/${id}`, 'DELETE'),
        call(`${b}/book/${id}`, 'PUT', { title: 'still here?' }),
        call(`${c}/book/${id}`, 'PUT', { year: 2024 })
      ])
      assert.equal(deleted.status, 200)
      for (const update of updates) assert.ok([200, 404].includes(update.status), JSON.stringify(update.body))
      for (const url of [a, b, c]) assert.equal((await call(`${url}/book/${id}`)).status, 404, `round ${round}`)
    }
  })

  test('URL parameters pass through to the driver: the pool names itself book-service unless the URL says otherwise', async () => {
    for (const url of [a, b, c]) assert.equal((await call(`${url}/readyz`)).status, 200)
    const names = await select<{ application_name: string }>(
      database.url,
      'SELECT DISTINCT application_name FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid() ORDER BY 1',
      [new URL(database.url).pathname.slice(1)]
    )
    // Besides the pools, each instance's change-log listener and its sequencer's connection, named
    // apart (`book-service-changes`, `book-service-numbering`) so pg_stat_activity tells them from
    // the pool; each is opened when first needed.
    const pools = names.map((row) => row.application_name).filter((name) => !/^book-service-(changes|numbering)$/.test(name))
    assert.deepEqual(pools, ['book-service', 'books-b'])
  })
})
