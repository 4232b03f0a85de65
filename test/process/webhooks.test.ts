import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { authHeaders, signToken } from '../support/app.js'
import { createPostgresDatabase, postgresSkipReason, type TestDatabase } from '../support/engines.js'
import { removeDirectory, startServer, temporaryDirectory, type RunningServer } from '../support/server.js'
import { deliveredSeqs, startReceiver, type WebhookReceiver } from '../support/webhook-receiver.js'

const admin = authHeaders(signToken({ role: 'admin' }))
const editor = authHeaders(signToken({ role: 'editor' }))
const json = { 'content-type': 'application/json' }

async function call(base: string, method: string, path: string, body?: unknown, headers = admin) {
  const response = await fetch(base + path, { method, headers: { ...headers, ...json }, body: body === undefined ? undefined : JSON.stringify(body) })
  return { status: response.status, headers: response.headers, body: (await response.json()) as { message: string; data: ReturnType<JSON['parse']> } }
}

/** Adds an endpoint for `receiver` and gives the receiver its secret. */
async function subscribe(base: string, receiver: WebhookReceiver, events?: string[]): Promise<string> {
  const created = await call(base, 'POST', '/webhooks', { url: receiver.url, ...(events ? { events } : {}) })
  assert.equal(created.status, 201, JSON.stringify(created.body))
  receiver.secrets = [created.body.data.secret]
  return created.body.data.id
}

async function writeBooks(base: string, count: number, from = 0): Promise<void> {
  for (let index = 0; index < count; index++) {
    const created = await call(base, 'POST', '/book', { title: `T${from + index}`, author: 'A', year: 2000 }, editor)
    assert.equal(created.status, 201)
  }
}

async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await read()
    if (done(value)) return value
    if (Date.now() > deadline) throw new Error(`not reached in ${timeoutMs} ms: ${JSON.stringify(value)}`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

const webhookIds = (receiver: WebhookReceiver) => receiver.received.map((entry) => String(entry.headers['webhook-id']))

describe('webhooks from a real process, to a real receiver', () => {
  let directory: string
  let server: RunningServer
  let receiver: WebhookReceiver
  before(async () => {
    directory = temporaryDirectory()
    server = await startServer({ dataDirectory: directory, env: { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_SCHEDULE: '1,1,1' } })
  })
  after(async () => {
    await server?.stop()
    removeDirectory(directory)
  })

  test('20 mixed writes arrive verified, in order, with their types', async () => {
    receiver = await startReceiver()
    try {
      const id = await subscribe(server.url, receiver)
      const expected: string[] = []
      let bookId = 0
      for (let index = 0; index < 20; index++) {
        if (index % 3 === 0 || bookId === 0) {
          bookId = (await call(server.url, 'POST', '/book', { title: `M${index}`, author: 'A', year: 1990 }, editor)).body.data.id
          expected.push(`book.created ${bookId}`)
        } else if (index % 3 === 1) {
          assert.equal((await call(server.url, 'PUT', `/book/${bookId}`, { year: 1991 }, editor)).status, 200)
          expected.push(`book.updated ${bookId}`)
        } else {
          assert.equal((await call(server.url, 'DELETE', `/book/${bookId}`, undefined, editor)).status, 200)
          expected.push(`book.deleted ${bookId}`)
          bookId = 0
        }
      }
      await receiver.waitFor((received) => received.length >= 20)
      await new Promise((resolve) => setTimeout(resolve, 500))
      assert.ok(receiver.received.every((entry) => entry.payload !== undefined), 'every delivery verifies with the secret')
      assert.deepEqual(receiver.received.map((entry) => `${entry.payload!.type} ${entry.payload!.data.id}`), expected)
      const seqs = deliveredSeqs(receiver.received)
      assert.deepEqual(seqs, [...seqs].sort((a, b) => a - b))
      assert.equal(new Set(webhookIds(receiver)).size, 20)
      assert.equal((await call(server.url, 'DELETE', `/webhooks/${id}`)).status, 200)
    } finally {
      await receiver.close()
    }
  })

  test('a receiver answering 500 then recovering: retries with the same webhook-id, then the rest in order', async () => {
    receiver = await startReceiver()
    try {
      receiver.respond = (index) => ({ status: index < 2 ? 500 : 204 })
      const id = await subscribe(server.url, receiver)
      await writeBooks(server.url, 5)
      await receiver.waitFor((received) => deliveredSeqs(received).length >= 5)
      const ids = webhookIds(receiver)
      assert.equal(ids[0], ids[1])
      assert.equal(ids[1], ids[2])
      assert.deepEqual(receiver.received.map((entry) => entry.status), [500, 500, 204, 204, 204, 204, 204])
      const seqs = deliveredSeqs(receiver.received)
      assert.deepEqual(seqs, [...seqs].sort((a, b) => a - b))
      assert.equal(new Set(seqs).size, 5)
      const log = await eventually(() => call(server.url, 'GET', `/webhooks/${id}/deliveries`), (answer) => answer.body.data.length === 5)
      const first = log.body.data.at(-1)
      assert.deepEqual([first.seq, first.attempt, first.status, first.http_status], [seqs[0], 3, 'succeeded', 204])
    } finally {
      await receiver.close()
    }
  })

  test('410 Gone disables the endpoint with the reason; nothing more is sent', async () => {
    receiver = await startReceiver()
    try {
      receiver.respond = () => ({ status: 410 })
      const id = await subscribe(server.url, receiver)
      await writeBooks(server.url, 2)
      const endpoint = await eventually(() => call(server.url, 'GET', `/webhooks/${id}`), (answer) => answer.body.data.enabled === false)
      assert.match(endpoint.body.data.disabled_reason, /410/)
      await new Promise((resolve) => setTimeout(resolve, 1500))
      assert.equal(receiver.received.length, 1)
      const failed = await call(server.url, 'GET', `/webhooks/${id}/deliveries?status=failed`)
      assert.deepEqual(failed.body.data.map((row: { http_status: number }) => row.http_status), [410])
    } finally {
      await receiver.close()
    }
  })

  test('a schedule run through disables the endpoint; Retry-After is honoured; a redirect is not followed', async () => {
    receiver = await startReceiver()
    const target = await startReceiver()
    try {
      receiver.respond = (index): { status: number; headers: Record<string, string> } =>
        index === 0 ? { status: 503, headers: { 'retry-after': '3' } } : { status: 302, headers: { location: target.url } }
      const id = await subscribe(server.url, receiver, ['created'])
      await writeBooks(server.url, 1)
      const endpoint = await eventually(() => call(server.url, 'GET', `/webhooks/${id}`), (answer) => answer.body.data.enabled === false)
      assert.match(endpoint.body.data.disabled_reason, /retry schedule ran out: 4 attempts/)
      assert.equal(receiver.received.length, 4)
      assert.equal(new Set(webhookIds(receiver)).size, 1)
      const times = receiver.received.map((entry) => Number(entry.headers['webhook-timestamp']))
      assert.ok(times[1]! - times[0]! >= 2, `Retry-After 3 waited ${times[1]! - times[0]!} s (schedule: 1 s)`)
      assert.equal(target.received.length, 0)
      const [row] = (await call(server.url, 'GET', `/webhooks/${id}/deliveries`)).body.data
      assert.deepEqual([row.attempt, row.status, row.http_status], [4, 'failed', 302])
      assert.match(row.error, /redirects are not followed/)
    } finally {
      await receiver.close()
      await target.close()
    }
  })

  test('SIGKILL during deliveries, then a restart: nothing skipped, in order, a repeat keeps its webhook-id', async () => {
    receiver = await startReceiver()
    try {
      const existing = ((await call(server.url, 'GET', '/books')).body.data as unknown[]).length
      await subscribe(server.url, receiver)
      const writing = writeBooks(server.url, 150, 1000).catch(() => {})
      await receiver.waitFor((received) => received.length >= 40)
      await server.stop('SIGKILL')
      await writing
      const acknowledged = deliveredSeqs(receiver.received).length
      server = await startServer({ dataDirectory: directory, env: { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_SCHEDULE: '1,1,1' } })
      const books = (await call(server.url, 'GET', '/books')).body.data as unknown[]
      await writeBooks(server.url, 5, 5000)
      // Every change since the endpoint's creation: the books written before the kill and after.
      const expected = books.length - existing + 5
      await receiver.waitFor((received) => new Set(deliveredSeqs(received)).size >= expected, 30_000)
      const seqs = deliveredSeqs(receiver.received)
      const distinct = [...new Set(seqs)]
      assert.equal(distinct.length, expected, `${acknowledged} before the kill`)
      assert.deepEqual(distinct, [...distinct].sort((a, b) => a - b), 'first arrivals in change order')
      assert.equal(distinct.at(-1)! - distinct[0]! + 1, expected, 'no change skipped')
      const idOf = new Map<number, string>()
      for (const entry of receiver.received) {
        const seq = entry.payload!.data.seq
        assert.equal(idOf.get(seq) ?? entry.headers['webhook-id'], entry.headers['webhook-id'])
        idOf.set(seq, String(entry.headers['webhook-id']))
      }
    } finally {
      await receiver.close()
    }
  })
})

describe('webhooks with WORKERS=2: each event once', () => {
  test('two workers on one SQLite file, one dispatcher', async () => {
    const directory = temporaryDirectory()
    const receiver = await startReceiver()
    const server = await startServer({ dataDirectory: directory, env: { WORKERS: '2', WEBHOOK_ALLOW_PRIVATE: 'true' } })
    try {
      await subscribe(server.url, receiver)
      await writeBooks(server.url, 30)
      await receiver.waitFor((received) => received.length >= 30)
      await new Promise((resolve) => setTimeout(resolve, 2000))
      assert.equal(receiver.received.length, 30)
      assert.equal(new Set(webhookIds(receiver)).size, 30)
    } finally {
      await server.stop()
      await receiver.close()
      removeDirectory(directory)
    }
  })
})

describe('webhooks from two PostgreSQL instances', { skip: postgresSkipReason }, () => {
  let database: TestDatabase
  const directories: string[] = []
  const servers: RunningServer[] = []
  before(async () => {
    database = await createPostgresDatabase()
  })
  after(async () => {
    for (const server of servers) await server.stop().catch(() => {})
    for (const directory of directories) removeDirectory(directory)
    await database?.drop()
  })

  test('each event once while both run; the survivor takes the lease over when the holder is killed', async () => {
    const receiver = await startReceiver()
    try {
      for (let index = 0; index < 2; index++) {
        const directory = temporaryDirectory()
        directories.push(directory)
        servers.push(await startServer({ dataDirectory: directory, env: { DATABASE_URL: database.url, WEBHOOK_ALLOW_PRIVATE: 'true' } }))
      }
      const [a, b] = servers as [RunningServer, RunningServer]
      await subscribe(a.url, receiver)
      await writeBooks(a.url, 10)
      await writeBooks(b.url, 10, 100)
      await receiver.waitFor((received) => received.length >= 20)
      await new Promise((resolve) => setTimeout(resolve, 2000))
      assert.equal(receiver.received.length, 20)
      assert.equal(new Set(webhookIds(receiver)).size, 20)

      const holder = a.output().includes('dispatcher lease taken') ? a : b
      const survivor = holder === a ? b : a
      await holder.stop('SIGKILL')
      await writeBooks(survivor.url, 5, 200)
      await receiver.waitFor((received) => new Set(deliveredSeqs(received)).size >= 25, 30_000)
      const seqs = [...new Set(deliveredSeqs(receiver.received))]
      assert.deepEqual(seqs, [...seqs].sort((x, y) => x - y))
    } finally {
      await receiver.close()
    }
  })
})
