import assert from 'node:assert/strict'
import { connect } from 'node:net'
import { test } from 'node:test'
import { signToken } from '../../support/app.js'
import { readAnswers } from '../../support/raw-http.js'
import { describeEachEngineServer } from '../../support/suite.js'

/**
 * Bad bytes after pipelined requests (src/http/errors/client-error.ts): every request Node handed
 * to the routes before the bytes it could not parse gets its own answer, in order, then the bad
 * bytes get theirs, then the connection closes. A client never has to guess whether a write it
 * sent was made. Against the real process, on each engine.
 */

const token = signToken()

/** Writes `bytes` on a new connection and resolves with everything received once the server closes it. */
function exchange(port: number, bytes: string): Promise<{ received: Buffer; closed: boolean }> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1')
    const chunks: Buffer[] = []
    let closed = false
    const timer = setTimeout(() => socket.destroy(), 15_000)
    socket.on('data', (chunk: Buffer) => chunks.push(chunk))
    socket.on('error', () => {})
    socket.on('close', () => {
      clearTimeout(timer)
      resolve({ received: Buffer.concat(chunks), closed })
    })
    socket.on('end', () => (closed = true))
    socket.write(bytes)
  })
}

const post = (book: object) => {
  const body = JSON.stringify(book)
  return `POST /book HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`
}
const get = (path: string) => `GET ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\n\r\n`

describeEachEngineServer('pipelined requests, then bytes that are not HTTP', ({ server }) => {
  test('three POST /book then GARBAGE: three 201 then a 400, in order; the three books are stored', async () => {
    const books = [1, 2, 3].map((n) => ({ title: `Pipelined ${n}`, author: 'Client', year: 2000 + n }))
    const { received, closed } = await exchange(server().port, books.map(post).join('') + 'GARBAGE\r\n\r\n')
    const answers = readAnswers(received)
    assert.deepEqual(answers.map((answer) => answer.status), [201, 201, 201, 400])
    assert.ok(closed, 'the connection is closed after the 400')
    const created = answers.slice(0, 3).map((answer) => (answer.body as { data: { id: number } }).data)
    assert.deepEqual(created.map(({ id, ...book }) => (assert.ok(id > 0), book)), books)
    assert.deepEqual(answers[3]!.body, { status: 400, message: 'Bad request', data: null })
    assert.equal(answers[3]!.headers.connection, 'close')
    const list = readAnswers((await exchange(server().port, get('/books').replace('\r\n\r\n', '\r\nConnection: close\r\n\r\n'))).received)
    assert.deepEqual((list[0]!.body as { data: unknown[] }).data, created)
  })

  test('reads and writes mixed, then headers over the cap: each answered in order, then 431', async () => {
    const requests = get('/books?limit=2') + post({ title: 'Mixed', author: 'Client', year: 1 }) + get('/healthz') + get('/book/999999999')
    const tooLarge = `GET /books HTTP/1.1\r\nHost: x\r\nX-Pad: ${'y'.repeat(20_000)}\r\n\r\n`
    const answers = readAnswers((await exchange(server().port, requests + tooLarge)).received)
    assert.deepEqual(answers.map((answer) => answer.status), [200, 201, 200, 404, 431])
    assert.deepEqual(answers[4]!.body, { status: 431, message: 'Request header fields too large', data: null })
  })
})
