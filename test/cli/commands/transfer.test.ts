import assert from 'node:assert/strict'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import Database from 'better-sqlite3'
import pg from 'pg'
import { eventually } from '../../support/client.js'
import { runCli } from '../../support/cli.js'
import { call } from '../../support/client.js'
import { createPostgresDatabase, engines, postgresSkipReason } from '../../support/engines.js'
import { removeDirectory, startServer, temporaryDirectory, type RunningServer } from '../../support/server.js'
import { processSkipReason } from '../../support/scope.js'

/** Books whose text breaks naive CSV and JSON handling: quotes, commas, line breaks, emoji, right-to-left text. */
const TRICKY = [
  { title: 'Dune, "the" first', author: 'Frank Herbert', year: 1965 },
  { title: 'Line one\nline two\r\nline three', author: 'Crlf, Author', year: -44 },
  { title: 'Emoji 📚🦄 and 家族', author: 'Zoë Ünïcödé', year: 2020 },
  { title: 'كتاب الرمل', author: 'خورخي لويس بورخيس', year: 1975 },
  { title: 'שלום "עולם", שורה', author: 'עמוס עוז', year: 2002 },
  { title: '  spaces kept  ', author: '=SUM(A1)', year: 0 },
  { title: '"', author: ',', year: 9999 }
]

/** A fresh empty database of `engine`: a SQLite file path in `folder`, or a PostgreSQL scratch database. */
async function freshDatabase(engine: string, folder: string, name: string, cleanups: Array<() => Promise<void>>): Promise<string> {
  if (engine === 'sqlite') return join(folder, `${name}.db`)
  const database = await createPostgresDatabase()
  cleanups.push(() => database.drop())
  return database.url
}

/** The actor and request id of each numbered change-log row of the database at `url` (docs/change-feed.md "Change log"), by seq. */
async function logContext(engine: string, url: string): Promise<Array<{ book_id: number; actor: string | null; request_id: string | null }>> {
  const text = 'SELECT book_id, actor, request_id FROM book_changes WHERE seq IS NOT NULL ORDER BY seq'
  if (engine === 'sqlite') {
    const db = new Database(url, { readonly: true })
    try {
      return db.prepare(text).all() as Array<{ book_id: number; actor: string | null; request_id: string | null }>
    } finally {
      db.close()
    }
  }
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    return (await client.query(text)).rows.map((row) => ({ ...row, book_id: Number(row.book_id) }))
  } finally {
    await client.end()
  }
}

/** All books the service answers, by id. */
async function listed(server: RunningServer): Promise<unknown[]> {
  const { status, body } = await call(`${server.url}/books`)
  assert.equal(status, 200)
  return body.data as unknown[]
}

for (const { engine, skip } of engines) {
  describe(`book-service export and import on ${engine} (the real process)`, { skip: processSkipReason ?? skip }, () => {
    const cleanups: Array<() => Promise<void>> = []
    let folder: string
    let source: string
    let server: RunningServer
    let stored: unknown[]
    const cli = (args: string[], url: string) => runCli(args, { cwd: folder, env: { DATABASE_URL: url, SECRET_TOKEN: 'x' } })

    before(async () => {
      folder = temporaryDirectory()
      source = await freshDatabase(engine, folder, 'source', cleanups)
      server = await startServer({ dataDirectory: folder, env: { DATABASE_URL: source, LOG_LEVEL: 'warn' } })
      for (const book of TRICKY) assert.equal((await call(`${server.url}/book`, 'POST', book)).status, 201)
      assert.equal((await call(`${server.url}/book/3`, 'DELETE')).status, 200) // a gap in the ids
      stored = await listed(server)
    })
    after(async () => {
      await server?.stop()
      for (const cleanup of cleanups) await cleanup()
      removeDirectory(folder)
    })

    for (const format of ['ndjson', 'csv'] as const) {
      test(`${format} round trip: export, import --keep-ids into an empty database, export again: the same bytes`, async () => {
        const exported = await cli(['export', '--format', format], source)
        assert.equal(exported.code, 0, exported.stderr)
        assert.equal(exported.stderr, '', 'no progress line when stderr is not a terminal')
        const toFile = await cli(['export', '--output', `books.${format}`], source)
        assert.equal(toFile.code, 0, toFile.stderr)
        const text = readFileSync(join(folder, `books.${format}`), 'utf8')
        assert.equal(text, exported.stdout, 'the extension picks the format')
        if (format === 'csv') assert.ok(text.startsWith('id,title,author,year\r\n1,"Dune, ""the"" first",Frank Herbert,1965\r\n'))
        else assert.deepEqual(text.trimEnd().split('\n').map((line) => JSON.parse(line)), stored)

        const target = await freshDatabase(engine, folder, `kept-${format}`, cleanups)
        const imported = await cli(['import', `books.${format}`, '--keep-ids'], target)
        assert.equal(imported.code, 0, imported.stderr)
        assert.equal(imported.stdout, `book-service: stored ${stored.length} books from books.${format}\n`)
        assert.equal((await cli(['export', '--format', format], target)).stdout, text)

        const renumbered = await freshDatabase(engine, folder, `new-${format}`, cleanups)
        assert.equal((await cli(['import', `books.${format}`], renumbered)).code, 0)
        const again = (await cli(['export'], renumbered)).stdout.trimEnd().split('\n').map((line) => JSON.parse(line))
        assert.deepEqual(again, (stored as Array<{ id: number }>).map((book, index) => ({ ...book, id: index + 1 })), 'new ids in file order')
      })
    }

    test('export --q: what GET /books?q= finds, in relevance order; a q too long: exit 1', async () => {
      for (const q of ['zoe unicode', 'line', '"herbert"', 'herbret', 'nothing here']) {
        const { status, body } = await call(`${server.url}/books?q=${encodeURIComponent(q)}`)
        assert.equal(status, 200)
        const exported = await cli(['export', '--q', q], source)
        assert.equal(exported.code, 0, exported.stderr)
        const lines = exported.stdout.trimEnd().split('\n').filter((line) => line !== '')
        assert.deepEqual(lines.map((line) => JSON.parse(line)), body.data, q)
      }
      assert.equal((await cli(['export', '--q', 'herbert'], source)).stdout.trimEnd().split('\n').length, 1)
      const tooLong = await cli(['export', '--q', 'x'.repeat(201)], source)
      assert.equal(tooLong.code, 1)
      assert.match(tooLong.stderr, /--q: at most 200 characters/)
    })

    test('a bad file changes nothing and names each bad line (the first 20, then a count)', async () => {
      const rows = ['id,title,author,year', '1,"a title\nover two lines",Someone,1999', '2,Fine,Author,"1965"']
      rows.push('3,No year,Author,', '4,"",Author,2000', '5,Too,many,fields,here', `6,${'x'.repeat(501)},A,1`, '7,Year,A,10000')
      for (let n = 0; n < 20; n++) rows.push(`${8 + n},Bad year ${n},A,20.5`)
      writeFileSync(join(folder, 'bad.csv'), `${rows.join('\r\n')}\r\n`)
      const refused = await cli(['import', 'bad.csv'], source)
      assert.equal(refused.code, 1)
      const report = refused.stderr.split('\n')
      assert.equal(report[0], 'book-service: import refused, nothing was stored: 25 invalid rows in bad.csv')
      assert.deepEqual(report.slice(1, 6), [
        '  line 5: year must be an integer from -9999 to 9999',
        '  line 6: title must not be empty or only white space',
        '  line 7: has 5 fields, the header has 4',
        '  line 8: title is longer than 500 characters',
        '  line 9: year must be an integer from -9999 to 9999'
      ])
      assert.equal(report[20], '  line 24: year must be an integer from -9999 to 9999')
      assert.equal(report[21], '  and 5 more')
      assert.equal(refused.stdout, '')
      writeFileSync(join(folder, 'bad.ndjson'), '{"title":"ok","author":"a","year":1}\n{"title":"x","author":"y","year":"1965"}\n')
      assert.match((await cli(['import', 'bad.ndjson'], source)).stderr, /1 invalid row in bad\.ndjson\n {2}line 2: year must be/)
      assert.deepEqual(await listed(server), stored)
    })

    test('import beside the running service: it serves the new books at once, a taken id is refused, ids move past', async () => {
      assert.equal((await call(`${server.url}/book/1`)).status, 200) // now in the read cache
      assert.equal((await call(`${server.url}/book/3`)).status, 404) // deleted before
      const taken = '{"id":1,"title":"Taken","author":"A","year":1}\n{"id":3,"title":"Three again","author":"B","year":3}\n'
      writeFileSync(join(folder, 'taken.ndjson'), taken)
      const refused = await cli(['import', 'taken.ndjson', '--keep-ids'], source)
      assert.equal(refused.code, 1)
      assert.equal(refused.stderr, 'book-service: import refused, nothing was stored: 1 row with a taken id in taken.ndjson\n  line 1: id 1 is already taken\n')
      assert.deepEqual(await listed(server), stored)

      writeFileSync(join(folder, 'more.ndjson'), '{"id":3,"title":"Three again","author":"B","year":3}\n{"id":50,"title":"Fifty","author":"C","year":50}\n')
      assert.equal((await cli(['import', 'more.ndjson', '--keep-ids'], source)).code, 0)
      // The import's changes record the command as their actor, and no request.
      await eventually('the import numbered', async () => (await logContext(engine, source)).some((row) => row.book_id === 50))
      assert.deepEqual((await logContext(engine, source)).slice(-2), [
        { book_id: 3, actor: 'book-service import', request_id: null },
        { book_id: 50, actor: 'book-service import', request_id: null }
      ])
      assert.deepEqual((await call(`${server.url}/book/3`)).body.data, { id: 3, title: 'Three again', author: 'B', year: 3 })
      assert.deepEqual((await call(`${server.url}/book/1`)).body.data, stored[0])
      assert.equal((await listed(server)).length, stored.length + 2)
      assert.equal((await call(`${server.url}/book`, 'POST', { title: 'Next', author: 'D', year: 1 })).body.data.id, 51)
    })
  })
}

describe('moving from SQLite to PostgreSQL: export, import --keep-ids, serve', { skip: postgresSkipReason }, () => {
  test('the service on PostgreSQL serves the same books with the same ids, and new ids follow', async () => {
    const folder = temporaryDirectory()
    const postgres = await createPostgresDatabase()
    try {
      const sqlite = join(folder, 'books.db')
      let server = await startServer({ dataDirectory: folder, env: { LOG_LEVEL: 'warn' } })
      for (const book of TRICKY) await call(`${server.url}/book`, 'POST', book)
      await call(`${server.url}/book/2`, 'DELETE')
      const before = await listed(server)
      await server.stop()
      const env = (url: string) => ({ cwd: folder, env: { DATABASE_URL: url, SECRET_TOKEN: 'x' } })
      assert.equal((await runCli(['export', '--output', 'move.ndjson'], env(sqlite))).code, 0)
      const imported = await runCli(['import', 'move.ndjson', '--keep-ids'], env(postgres.url))
      assert.equal(imported.code, 0, imported.stderr)
      server = await startServer({ dataDirectory: folder, env: { DATABASE_URL: postgres.url, LOG_LEVEL: 'warn' } })
      try {
        assert.deepEqual(await listed(server), before)
        assert.equal((await call(`${server.url}/book`, 'POST', { title: 'New', author: 'N', year: 1 })).body.data.id, TRICKY.length + 1)
      } finally {
        await server.stop()
      }
    } finally {
      removeDirectory(folder)
      await postgres.drop()
    }
  })
})
