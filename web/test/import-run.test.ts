import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { describe, test } from 'node:test'
import { pageClient } from '../src/api/client.js'
import { IMPORT_CONCURRENCY, importKeyPrefix, rowKey, runImport } from '../src/transfer/import-run.js'
import { signToken } from '../../test/support/app.js'
import { describeEachEngineServer } from '../../test/support/suite.js'

/** A service answering `POST /book` by `answer(body)`, recording each request and the most in flight at once. */
function service(answer: (body: { title: string }) => number) {
  const requests: { key: string | undefined; body: { title: string } }[] = []
  let inFlight = 0
  let most = 0
  const fetch = (async (_url: string, init: RequestInit) => {
    inFlight++
    most = Math.max(most, inFlight)
    await new Promise((resolve) => setTimeout(resolve, 2))
    inFlight--
    const body = JSON.parse(String(init.body)) as { title: string }
    requests.push({ key: (init.headers as Record<string, string>)['idempotency-key'], body })
    const status = answer(body)
    if (status === 0) throw new TypeError('fetch failed')
    const message = { 201: 'Book created successfully', 400: 'Invalid input', 401: 'Invalid token', 503: 'Service unavailable' }[status]
    return new Response(JSON.stringify({ status, message, data: status === 201 ? { id: 1, ...body } : null }), { status })
  }) as unknown as typeof globalThis.fetch
  return { fetch, requests, most: () => most }
}

const rows = (count: number) =>
  Array.from({ length: count }, (_, index) => ({ line: index + 2, book: { title: `Book ${index + 2}`, author: 'A', year: 2000 } }))

describe('sending an import', () => {
  test('the keys come from the file’s content and the row’s line: the same file gives the same keys', () => {
    const content = new TextEncoder().encode('title,author,year\nDune,Frank Herbert,1965\n')
    const prefix = importKeyPrefix(content)
    assert.equal(prefix, `import-${createHash('sha256').update(content).digest('hex')}`)
    assert.equal(importKeyPrefix(content.slice()), prefix)
    assert.notEqual(importKeyPrefix(new TextEncoder().encode('title,author,year\nDune,Frank Herbert,1966\n')), prefix)
    assert.equal(rowKey(prefix, 2), `${prefix}-line-2`)
  })

  test('each row once, with its key, a few at a time, with progress', async () => {
    const { fetch, requests, most } = service(() => 201)
    const progress: number[] = []
    const outcome = await runImport(pageClient({ token: 't', fetch }), rows(30), 'import-abc', (done) => progress.push(done))
    assert.deepEqual(outcome, { stored: 30, alreadyStored: 0, refused: [], unsent: [] })
    assert.deepEqual(requests.map((request) => request.key).sort(), rows(30).map((row) => `import-abc-line-${row.line}`).sort())
    assert.ok(most() <= IMPORT_CONCURRENCY && most() > 1, `${most()} in flight`)
    assert.deepEqual(progress, Array.from({ length: 30 }, (_, index) => index + 1))
  })

  test('refused rows (4xx) apart from rows to send again (network, 5xx)', async () => {
    const { fetch } = service((body) => (body.title === 'Book 3' ? 400 : body.title === 'Book 5' ? 503 : body.title === 'Book 6' ? 0 : 201))
    const outcome = await runImport(pageClient({ token: 't', fetch }), rows(6), 'k', () => {})
    assert.deepEqual(outcome, { stored: 3, alreadyStored: 0, refused: [{ line: 3, message: 'Invalid input' }], unsent: [5, 6] })
  })

  test('a 401 ends the session and stops the import: the rest is reported unsent', async () => {
    let ended = 0
    const { fetch, requests } = service((body) => (body.title === 'Book 4' ? 401 : 201))
    const outcome = await runImport(pageClient({ token: 't', fetch, onUnauthorized: () => ended++ }), rows(40), 'k', () => {})
    assert.equal(ended, 1)
    assert.ok(requests.length < 40)
    assert.equal(outcome.stored + outcome.unsent.length, 40)
    assert.ok(outcome.unsent.includes(4))
  })
})

describeEachEngineServer('re-importing a file after lost answers', ({ server }) => {
  test('the rows whose answers were lost are sent again and honoured by their keys: no book twice', async () => {
    const token = signToken({ sub: 'importer' })
    const content = new TextEncoder().encode(`lost answers ${Date.now()}`)
    const prefix = importKeyPrefix(content)
    // The service stores every row, but the answers of every third row never reach the page.
    let sent = 0
    const losing = (async (path: string, init: RequestInit) => {
      const response = await fetch(`${server().url}${path}`, init)
      if (++sent % 3 === 0) throw new TypeError('fetch failed')
      return response
    }) as unknown as typeof globalThis.fetch
    const first = await runImport(pageClient({ token, fetch: losing }), rows(30), prefix, () => {})
    assert.equal(first.stored, 20)
    assert.equal(first.unsent.length, 10)
    const again = await runImport(pageClient({ token, fetch: (async (path: string, init: RequestInit) => fetch(`${server().url}${path}`, init)) as typeof globalThis.fetch }), rows(30), prefix, () => {})
    // The 20 answers the page saw are replayed (marked `Idempotent-Replayed`); the 10 lost ones too:
    // the service stored them the first time. Nothing is new.
    assert.deepEqual(again, { stored: 0, alreadyStored: 30, refused: [], unsent: [] })
    const listed = (await (await fetch(`${server().url}/books`, { headers: { authorization: `Bearer ${token}` } })).json()) as { data: { title: string }[] }
    assert.deepEqual(listed.data.map((book) => book.title).sort(), rows(30).map((row) => row.book.title).sort())
  })
})
