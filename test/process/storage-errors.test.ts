import assert from 'node:assert/strict'
import { truncateSync, writeFileSync } from 'node:fs'
import { request } from 'node:http'
import { join } from 'node:path'
import { describe, test } from 'node:test'
import { authHeaders } from '../support/app.js'
import { runCli } from '../support/cli.js'
import { eventually } from '../support/client.js'
import { createPostgresDatabase, postgresSkipReason } from '../support/engines.js'
import { postgresTarget, startProxy, through } from '../support/proxy.js'
import { removeDirectory, startServer, temporaryDirectory, type RunningServer } from '../support/server.js'

/**
 * A storage error never ends the process (docs/contract.md "Everything else": 500 or 503 for the
 * request, the log has it), wherever the store is called: in a request's handler, or outside any
 * request's promise chain (the shared list's timer, the list stream's pump). Against the real
 * process, on each engine.
 */

const auth = authHeaders()

async function answer(server: RunningServer, path: string, method = 'GET', body?: unknown) {
  const response = await fetch(`${server.url}${path}`, {
    method,
    headers: { ...auth, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body)
  })
  return { status: response.status, body: await response.json() }
}

describe('storage errors (real process) [sqlite]', () => {
  test('the database file emptied under the service: each request 503 in the envelope (a damaged store), the process keeps serving', async () => {
    const directory = temporaryDirectory()
    try {
      let server = await startServer({ dataDirectory: directory })
      assert.equal((await answer(server, '/book', 'POST', { title: 'T', author: 'A', year: 1 })).status, 201)
      assert.equal(await server.stop(), 0) // the WAL is checkpointed into books.db and removed
      server = await startServer({ dataDirectory: directory })
      truncateSync(join(directory, 'books.db'), 0)
      const unavailable = { status: 503, message: 'Service unavailable', data: null }
      // The first: the whole list's shared read starts on a timer, outside the request's chain.
      for (const path of ['/books', '/books', '/books?author=a', '/books?limit=1', '/book/1']) {
        assert.deepEqual(await answer(server, path), { status: 503, body: unavailable }, path)
      }
      assert.deepEqual(await answer(server, '/book', 'POST', { title: 'T', author: 'A', year: 2 }), { status: 503, body: unavailable })
      assert.equal((await fetch(`${server.url}/healthz`)).status, 200)
      assert.equal(server.process.exitCode, null, 'the process is still running')
      // The log is written asynchronously (up to 200 ms after the line): wait for it.
      await eventually('the log has the error', async () => /SQLITE_(CORRUPT|NOTADB)/.test(server.stdout()))
      await server.stop('SIGKILL')
    } finally {
      removeDirectory(directory)
    }
  })
})

describe('storage errors (real process) [postgres]', () => {
  test('the database cut before a list and during one: 503, or the stream aborted; the process keeps serving', { skip: postgresSkipReason }, async () => {
    const database = await createPostgresDatabase()
    const proxy = await startProxy(postgresTarget())
    const directory = temporaryDirectory()
    let server: RunningServer | undefined
    try {
      const url = through(database.url, proxy.port)
      const file = join(directory, 'books.ndjson')
      writeFileSync(file, Array.from({ length: 20_000 }, (_, n) => JSON.stringify({ title: `Book ${n} ${'x'.repeat(60)}`, author: 'Long List', year: 1 })).join('\n'))
      const imported = await runCli(['import', file], { cwd: directory, env: { DATABASE_URL: url, SECRET_TOKEN: 'x'.repeat(32) }, timeoutMs: 60_000 })
      assert.equal(imported.code, 0, imported.stderr)
      server = await startServer({ dataDirectory: directory, env: { DATABASE_URL: url } })
      const running = server

      // During: the first piece is out (200 started), the reader pauses, the database goes away.
      const aborted = await new Promise<string>((resolve) => {
        const sent = request(`${running.url}/books?author=long`, { headers: auth }, (response) => {
          assert.equal(response.statusCode, 200)
          response.once('data', () => {
            response.pause()
            void proxy.cut().then(() => response.resume())
          })
          response.on('error', () => resolve('aborted'))
          response.on('end', () => resolve(response.complete ? 'complete' : 'aborted'))
        })
        sent.on('error', () => resolve('aborted'))
        sent.end()
      })
      assert.equal(aborted, 'aborted', 'a list that cannot be read to its end is cut, never ended as if complete')

      const unavailable = { status: 503, message: 'Service unavailable', data: null }
      for (const path of ['/books', '/books?author=long', '/books?limit=2', '/book/1']) {
        assert.deepEqual(await answer(running, path), { status: 503, body: unavailable }, path)
      }
      assert.equal((await fetch(`${running.url}/healthz`)).status, 200)
      await proxy.restore()
      assert.equal((await answer(running, '/books?limit=2')).status, 200)
      assert.equal(running.process.exitCode, null, 'the process is still running')
    } finally {
      await server?.stop('SIGKILL')
      await proxy.close()
      await database.drop()
      removeDirectory(directory)
    }
  })
})
