import assert from 'node:assert/strict'
import { connect, type Socket } from 'node:net'
import { after, before, describe, test } from 'node:test'
import fc from 'fast-check'
import { authHeaders, signToken } from '../support/app.js'
import { readAnswers } from '../support/raw-http.js'
import { removeDirectory, startServer, temporaryDirectory, type RunningServer } from '../support/server.js'
import { processSkipReason } from '../support/scope.js'

/**
 * Slow and abusive clients against the real process (docs/operations.md "Reliability and security"): header and body deadlines, the
 * header size cap, duplicated headers, the connection limit. Short deadlines come from the
 * settings; the assertions are about who gets dropped and who keeps being served, not timings.
 */

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
/** Resolves after `ms` without keeping the process alive (a bound for Promise.race). */
const atMost = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms).unref())
const token = signToken()

/** An open raw TCP connection that collects what the server sends and notes when it closes. */
interface Raw {
  socket: Socket
  received(): string
  closed: Promise<void>
  isClosed(): boolean
}

async function open(port: number): Promise<Raw> {
  const socket = connect(port, '127.0.0.1')
  let data = ''
  let isClosed = false
  socket.on('data', (chunk) => (data += chunk.toString('latin1')))
  socket.on('error', () => {})
  const closed = new Promise<void>((resolve) => socket.once('close', () => ((isClosed = true), resolve())))
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve)
    socket.once('error', reject)
  })
  return { socket, received: () => data, closed, isClosed: () => isClosed }
}

/** Writes `text` one byte every `everyMs` until it is all sent or the server closed the connection. */
async function trickle(raw: Raw, text: string, everyMs: number): Promise<void> {
  for (const byte of text) {
    if (raw.isClosed()) return
    raw.socket.write(byte)
    await sleep(everyMs)
  }
}

/** The JSON envelope of a raw HTTP/1.1 answer. */
function envelopeOf(answer: string): unknown {
  return JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))
}

/** Fetches GET /books with a valid token `count` times, one after another; returns the statuses. */
async function served(server: RunningServer, count: number): Promise<number[]> {
  const statuses = []
  for (let i = 0; i < count; i++) {
    statuses.push((await fetch(`${server.url}/books`, { headers: authHeaders(token) })).status)
    await sleep(50)
  }
  return statuses
}

describe('slow and abusive clients (real process)', { skip: processSkipReason }, () => {
  let directory = ''
  let server: RunningServer
  before(async () => {
    directory = temporaryDirectory()
    server = await startServer({ dataDirectory: directory, env: { HEADERS_TIMEOUT: '1', REQUEST_TIMEOUT: '2' } })
  })
  after(async () => {
    assert.equal(await server.stop('SIGTERM'), 0)
    removeDirectory(directory)
  })

  test('a slowloris connection (headers one byte at a time) is answered 408 and dropped; others keep being served', async () => {
    const slow = await open(server.port)
    const endless = `GET /books HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\n${'X-Pad: y\r\n'.repeat(1000)}\r\n`
    const sending = trickle(slow, endless, 20)
    const idle = await open(server.port) // a connection that never sends a byte
    const statuses = await served(server, 10)
    await Promise.race([slow.closed, atMost(20_000)])
    await Promise.race([idle.closed, atMost(20_000)])
    await sending
    assert.ok(slow.isClosed(), 'the slowloris connection is still open')
    assert.ok(idle.isClosed(), 'the silent connection is still open')
    assert.match(slow.received(), /^HTTP\/1\.1 408 /)
    assert.deepEqual(envelopeOf(slow.received()), { status: 408, message: 'Request timeout', data: null })
    assert.deepEqual(statuses, Array(10).fill(200))
  })

  test('a body sent too slowly is answered 408 and dropped; nothing is stored', async () => {
    const slow = await open(server.port)
    const book = JSON.stringify({ title: 'slow', author: 'loris', year: 1 })
    slow.socket.write(
      `POST /book HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: ${book.length + 500}\r\n\r\n`
    )
    const sending = trickle(slow, book + ' '.repeat(500), 20)
    const statuses = await served(server, 10)
    await Promise.race([slow.closed, atMost(20_000)])
    await sending
    assert.ok(slow.isClosed(), 'the slow-body connection is still open')
    assert.match(slow.received(), /^HTTP\/1\.1 408 /)
    assert.deepEqual(statuses, Array(10).fill(200))
    const books = (await (await fetch(`${server.url}/books`, { headers: authHeaders(token) })).json()) as { data: unknown[] }
    assert.deepEqual(books.data, [])
  })

  test('headers over the cap are answered 431 with the envelope (a 100 KB token included)', async () => {
    for (const headers of [{ 'x-big': 'y'.repeat(20 * 1024) }, { authorization: `Bearer ${signToken({ pad: 'x'.repeat(100 * 1024) })}` }] as Array<Record<string, string>>) {
      const response = await fetch(`${server.url}/books`, { headers })
      assert.equal(response.status, 431)
      assert.deepEqual(await response.json(), { status: 431, message: 'Request header fields too large', data: null })
    }
    assert.equal((await fetch(`${server.url}/healthz`)).status, 200)
  })

  test('an HTTP/1.1 request without Host: 400 Bad request in the envelope, connection closed (HTTP/1.0 needs none)', async () => {
    const ask = async (request: string) => {
      const raw = await open(server.port)
      raw.socket.write(request)
      await Promise.race([raw.closed, atMost(5000)])
      assert.ok(raw.isClosed(), 'the connection is still open')
      return raw.received()
    }
    // The bytes after the request must not be answered as a second request either.
    const answer = await ask(`PUT /book/1 HTTP/1.1\r\nAuthorization: Bearer ${token}\r\n\r\ntrailing junk`)
    assert.match(answer, /^HTTP\/1\.1 400 /)
    assert.deepEqual(envelopeOf(answer), { status: 400, message: 'Bad request', data: null })
    assert.match(await ask('GET /healthz HTTP/1.0\r\n\r\n'), /^HTTP\/1\.1 200 /)
  })

  test('a POST whose body runs past its Content-Length gets its own 201 (the book is stored), then 400 for the rest, then the connection closes', async () => {
    const raw = await open(server.port)
    const book = JSON.stringify({ title: 'overlong', author: 'A', year: 3 })
    // The bytes past Content-Length are parsed as a next request, which is malformed.
    raw.socket.write(`POST /book HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Length: ${book.length}\r\n\r\n${book}garbage\r\n\r\n`)
    await Promise.race([raw.closed, atMost(5000)])
    assert.ok(raw.isClosed(), 'the connection is still open')
    const [answer, refusal, ...more] = readAnswers(raw.received())
    assert.deepEqual([answer?.status, refusal?.body, more], [201, { status: 400, message: 'Bad request', data: null }, []])
    const created = answer!.body as { data: { id: number } }
    const stored = await fetch(`${server.url}/book/${created.data.id}`, { headers: authHeaders(token) })
    assert.deepEqual(((await stored.json()) as { data: unknown }).data, { id: created.data.id, title: 'overlong', author: 'A', year: 3 })
  })

  test('a duplicated Authorization header: 400 Bad request, whichever one is valid, never a 5xx', async () => {
    const ask = async (first: string, second: string) => {
      const raw = await open(server.port)
      raw.socket.write(`GET /books HTTP/1.1\r\nHost: x\r\nAuthorization: ${first}\r\nAuthorization: ${second}\r\nConnection: close\r\n\r\n`)
      await raw.closed
      return raw.received()
    }
    for (const [first, second] of [[`Bearer ${token}`, 'junk'], ['junk', `Bearer ${token}`], [`Bearer ${token}`, `Bearer ${token}`]]) {
      const refused = await ask(first!, second!)
      assert.match(refused, /^HTTP\/1\.1 400 /)
      assert.deepEqual(envelopeOf(refused), { status: 400, message: 'Bad request', data: null })
    }
  })
})

/**
 * Parses a raw HTTP/1.1 answer (after any `100 Continue`): status code and JSON body
 * (Content-Length framing; none for HEAD). Undefined when nothing came back.
 */
function parseAnswer(received: string, bodiless: boolean, request?: string): { status: number; body: unknown } | undefined {
  const answer = received.replace(/^HTTP\/1\.1 100 Continue\r\n\r\n/, '')
  if (answer === '') return undefined
  const match = /^HTTP\/1\.1 (\d{3}) /.exec(answer)
  assert.ok(match, `not an HTTP answer: ${JSON.stringify(answer.slice(0, 200))}`)
  const head = answer.slice(0, answer.indexOf('\r\n\r\n'))
  const length = Number(/\r\ncontent-length: (\d+)/i.exec(head)?.[1] ?? NaN)
  if (bodiless) return { status: Number(match[1]), body: undefined }
  if (/\r\ncontent-type: text\/html/i.test(head)) {
    // The web page (docs/web-page.md "Web page"): only a request line whose target is `/` gets it.
    const target = request?.split(' ')[1] ?? ''
    assert.equal(new URL(target, 'http://x').pathname, '/', `HTML for ${JSON.stringify(request)}`)
    return { status: Number(match[1]), body: undefined }
  }
  const rest = answer.slice(head.length + 4)
  const text = Number.isNaN(length) ? rest : rest.slice(0, length)
  try {
    return { status: Number(match[1]), body: JSON.parse(text) }
  } catch {
    assert.fail(`the body is not JSON: ${JSON.stringify(answer.slice(0, 500))}${request === undefined ? "" : ` for ${JSON.stringify(request)}`}`)
  }
}

describe('raw request bytes (real process)', { skip: processSkipReason }, () => {
  test('generated request lines and headers: never a 5xx, always the envelope, the server stays up', async (t) => {
    const directory = temporaryDirectory()
    const server = await startServer({ dataDirectory: directory, env: { HEADERS_TIMEOUT: '1', REQUEST_TIMEOUT: '2' } })
    const token = signToken()
    const line = fc.oneof(
      fc.string({ unit: 'binary-ascii', maxLength: 200 }),
      fc.tuple(
        fc.oneof(
          { weight: 5, arbitrary: fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS', 'CONNECT', 'TRACE', 'get', 'PRI', 'M-SEARCH') },
          { weight: 1, arbitrary: fc.string({ maxLength: 10 }) }
        ),
        fc.oneof(
          { weight: 5, arbitrary: fc.constantFrom('/books', '/book/1', '/book', '/login', '/healthz', '*', 'http://x/books', '//books', '/book/%', '/book/%00', '/../books', '/books?x=%zz') },
          { weight: 1, arbitrary: fc.string({ unit: 'binary-ascii', maxLength: 100 }) }
        ),
        fc.oneof({ weight: 4, arbitrary: fc.constant('HTTP/1.1') }, { weight: 1, arbitrary: fc.constantFrom('HTTP/1.0', 'HTTP/2.0', 'HTTP/9', '', 'http/1.1') })
      ).map(([verb, target, version]) => `${verb} ${target} ${version}`)
    )
    const header = fc.oneof(
      { weight: 4, arbitrary: fc.constantFrom('Host: x', `Authorization: Bearer ${token}`, 'Authorization: ', 'Content-Length: 5', 'Content-Length: -1', 'Content-Length: 1, 2', 'Transfer-Encoding: chunked', 'Transfer-Encoding: gzip, chunked', 'Content-Type: application/json', 'Expect: 100-continue', 'Connection: upgrade', 'Upgrade: websocket', ' folded', 'X: \u00ff') },
      { weight: 1, arbitrary: fc.tuple(fc.string({ unit: 'binary-ascii', maxLength: 20 }), fc.string({ unit: 'binary-ascii', maxLength: 60 })).map(([name, value]) => `${name}: ${value}`) }
    )
    const requests = fc.sample(
      fc.tuple(line, fc.boolean(), fc.array(header, { maxLength: 4 }), fc.string({ maxLength: 40 })).map(([first, host, more, body]) => {
        const headers = [...(host ? ['Host: x'] : []), ...more, 'Connection: close']
        return `${first}\r\n${headers.join('\r\n')}\r\n\r\n${body}`
      }),
      { numRuns: Number(process.env.RAW_RUNS ?? 400) }
    )
    const statuses = new Map<number, number>()
    try {
      for (let at = 0; at < requests.length; at += 25) {
        await Promise.all(
          requests.slice(at, at + 25).map(async (request) => {
            const raw = await open(server.port)
            raw.socket.write(Buffer.from(request, 'latin1'))
            await Promise.race([raw.closed, atMost(3000)])
            raw.socket.destroy()
            const answer = parseAnswer(raw.received(), request.startsWith('HEAD '), request)
            if (!answer) return
            statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1)
            assert.ok(answer.status < 500, `${answer.status} for ${JSON.stringify(request)}`)
            if (answer.body !== undefined) assert.equal((answer.body as { status: number }).status, answer.status, JSON.stringify(request))
          })
        )
        assert.equal((await fetch(`${server.url}/healthz`)).status, 200)
      }
      t.diagnostic(`raw requests: ${requests.length}, statuses ${JSON.stringify(Object.fromEntries(statuses))}`)
    } finally {
      assert.equal(await server.stop('SIGTERM'), 0)
      removeDirectory(directory)
    }
  })
})

describe('connection limit (real process)', { skip: processSkipReason }, () => {
  test('connections beyond MAX_CONNECTIONS: the longest idle ones are closed to make room; the newest are served, and new ones after', async () => {
    const directory = temporaryDirectory()
    const limit = 5
    const server = await startServer({ dataDirectory: directory, env: { MAX_CONNECTIONS: String(limit) } })
    const sockets: Raw[] = []
    try {
      // One after another, each answered before the next opens (so the service has taken it), then
      // idle on its kept-alive connection.
      for (let n = 0; n < limit * 3; n++) {
        const raw = await open(server.port)
        sockets.push(raw)
        raw.socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n')
        while (!raw.received().includes('\r\n\r\n') && !raw.isClosed()) await sleep(10)
        assert.match(raw.received(), /^HTTP\/1\.1 200 /, `connection ${n} is answered`)
      }
      // Each one past the cap closed the one idle the longest (the readiness probe's first, if held).
      await Promise.race([Promise.all(sockets.slice(0, -limit).map((raw) => raw.closed)), atMost(5000)])
      assert.deepEqual(sockets.map((raw) => raw.isClosed()), [...Array(limit * 2).fill(true), ...Array(limit).fill(false)])
      for (const raw of sockets.slice(-limit)) {
        const before = raw.received().length
        raw.socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n')
        while (!raw.received().slice(before).includes('\r\n\r\n') && !raw.isClosed()) await sleep(10)
        assert.match(raw.received().slice(before), /^HTTP\/1\.1 200 /, 'the newest are served again')
      }
      for (const raw of sockets) raw.socket.destroy()
      await sleep(200)
      assert.equal((await fetch(`${server.url}/healthz`)).status, 200)
    } finally {
      for (const raw of sockets) raw.socket.destroy()
      assert.equal(await server.stop('SIGTERM'), 0)
      removeDirectory(directory)
    }
  })

  test('idle sockets from many addresses holding MAX_CONNECTIONS do not keep a client out, nor close a connection with an answer in progress', async () => {
    const directory = temporaryDirectory()
    const server = await startServer({ dataDirectory: directory, env: { MAX_CONNECTIONS: '20', MAX_CONNECTIONS_PER_ADDRESS: '5', HEADERS_TIMEOUT: '60' } })
    const idle: Socket[] = []
    try {
      // A change feed stream: a connection whose answer is in progress.
      const stream = await open(server.port)
      stream.socket.write(`GET /books/changes HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\n\r\n`)
      await sleep(300)
      assert.match(stream.received(), /^HTTP\/1\.1 200 /)
      // 8 addresses x 5 idle sockets (each address within its own cap): twice MAX_CONNECTIONS.
      for (let n = 0; n < 40; n++) {
        const socket = connect({ port: server.port, host: '127.0.0.1', localAddress: `127.0.0.${10 + (n % 8)}` })
        socket.on('error', () => {})
        idle.push(socket)
        await new Promise((resolve) => socket.once('connect', resolve))
      }
      await sleep(300)
      // A client from another address gets in each time, and is answered.
      for (let n = 0; n < 5; n++) {
        const client = await open(server.port)
        client.socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')
        await Promise.race([client.closed, atMost(5000)])
        assert.match(client.received(), /^HTTP\/1\.1 200 /, `attempt ${n}: ${JSON.stringify(client.received())}`)
      }
      assert.equal(stream.isClosed(), false, 'the stream is still open')
    } finally {
      for (const socket of idle) socket.destroy()
      assert.equal(await server.stop('SIGTERM'), 0)
      removeDirectory(directory)
    }
  })
})
