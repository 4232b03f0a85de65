import assert from 'node:assert/strict'
import { writeFileSync } from 'node:fs'
import { connect } from 'node:net'
import { join } from 'node:path'
import { before, test } from 'node:test'
import { authHeaders, signToken } from '../../support/app.js'
import { runCli } from '../../support/cli.js'
import { readAnswers } from '../../support/raw-http.js'
import type { RunningServer } from '../../support/server.js'
import { describeEachEngineServer } from '../../support/suite.js'

/**
 * Lists with query parameters on the real process, on each engine (docs/api.md "Large collections and
 * concurrent edits"): pages asked back to back on one connection (HTTP pipelining) are each read
 * whole, so one never finds the statement of another still busy; a filtered or sorted list
 * without `limit` is read page by page and streamed like the whole list, never built whole.
 */

const token = signToken()
const auth = authHeaders(token)
type Book = { id: number; title: string; author: string; year: number }

/** 1,600 books (ids 1..1600 in file order): every other one by "Streamed Author" (~90 KB of them), the rest by "Other". */
const catalogue = Array.from({ length: 1600 }, (_, index) => ({
  title: `Title ${String(1600 - index).padStart(4, '0')} ${'x'.repeat(40)}`,
  author: index % 2 === 0 ? 'Streamed Author' : 'Other',
  year: 1900 + (index % 120)
}))

async function getJson(server: RunningServer, path: string) {
  const response = await fetch(`${server.url}${path}`, { headers: auth })
  return { response, body: (await response.json()) as { status: number; data: Book[] } }
}

/** Imports {@link catalogue} with the command line, before the process starts. */
async function importCatalogue(directory: string, databaseUrl: string): Promise<void> {
  const file = join(directory, 'catalogue.ndjson')
  writeFileSync(file, catalogue.map((book) => JSON.stringify(book)).join('\n'))
  const imported = await runCli(['import', file], { cwd: directory, env: { DATABASE_URL: databaseUrl, SECRET_TOKEN: 'x'.repeat(32) }, timeoutMs: 60_000 })
  assert.equal(imported.code, 0, imported.stderr)
}

describeEachEngineServer('lists with query parameters', ({ server: running }) => {
  let server: RunningServer
  let stored: Book[] = []
  before(async () => {
    server = running()
    stored = (await getJson(server, '/books')).body.data
    assert.equal(stored.length, catalogue.length)
  })

  test('pages of every shape pipelined on one connection: each answered 200 with its books', async () => {
    const shapes: Array<[string, (books: Book[]) => Book[]]> = [
      ['/books?limit=5', (books) => books.slice(0, 5)],
      ['/books?author=streamed&limit=3', (books) => books.filter((book) => book.author === 'Streamed Author').slice(0, 3)],
      ['/books?sort=title&limit=2', (books) => [...books].sort((a, b) => a.title.localeCompare(b.title)).slice(0, 2)],
      ['/books?year_min=2000&limit=4', (books) => books.filter((book) => book.year >= 2000).slice(0, 4)]
    ]
    const requests = Array.from({ length: 80 }, (_, index) => shapes[index % shapes.length]!)
    const bytes = requests.map(([path]) => `GET ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\n\r\n`).join('')
    const received = await new Promise<Buffer>((resolve) => {
      const socket = connect(server.port, '127.0.0.1')
      const chunks: Buffer[] = []
      socket.on('data', (chunk: Buffer) => {
        chunks.push(chunk)
        if (readAnswersSafely(Buffer.concat(chunks)) >= requests.length) socket.end()
      })
      socket.on('close', () => resolve(Buffer.concat(chunks)))
      socket.on('error', () => {})
      socket.write(bytes)
      setTimeout(() => socket.destroy(), 30_000).unref()
    })
    const answers = readAnswers(received)
    assert.deepEqual(answers.map((answer) => answer.status), requests.map(() => 200))
    answers.forEach((answer, index) => {
      const [path, expected] = requests[index]!
      assert.deepEqual((answer.body as { data: Book[] }).data, expected(stored), path)
    })
  })

  test('a filtered list without limit is every matching book, streamed (no Content-Length), like the whole list', async () => {
    const { response, body } = await getJson(server, '/books?author=STREAMED&count=true')
    const expected = stored.filter((book) => book.author === 'Streamed Author')
    assert.deepEqual(body.data, expected)
    assert.equal(response.headers.get('x-total-count'), String(expected.length))
    assert.equal(response.headers.get('content-length'), null, 'streamed, not built as one text')
    assert.equal(response.headers.get('transfer-encoding'), 'chunked')
    assert.equal(response.headers.get('content-type'), 'application/json; charset=utf-8')
  })

  test('sorted lists without limit, more than a store page: complete and in order', async () => {
    const byTitleDescending = [...stored].sort((a, b) => b.title.localeCompare(a.title) || b.id - a.id)
    assert.deepEqual((await getJson(server, '/books?sort=-title')).body.data, byTitleDescending)
    const byYear = [...stored].sort((a, b) => a.year - b.year || a.id - b.id)
    assert.deepEqual((await getJson(server, '/books?sort=year&year_min=1950')).body.data, byYear.filter((book) => book.year >= 1950))
    const after = stored[700]!.id
    assert.deepEqual((await getJson(server, `/books?after=${after}`)).body.data, stored.filter((book) => book.id > after))
  })
}, { prepare: importCatalogue })

/** How many complete answers `bytes` holds so far (0 while the first is incomplete). */
function readAnswersSafely(bytes: Buffer): number {
  try {
    return readAnswers(bytes).length
  } catch {
    return 0
  }
}
