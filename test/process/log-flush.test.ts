import assert from 'node:assert/strict'
import { test } from 'node:test'
import { authHeaders } from '../support/app.js'
import { removeDirectory, startServer, temporaryDirectory } from '../support/server.js'

test('every request line is in the log by the time SIGTERM exits (pino writes asynchronously and flushes on exit)', async () => {
  const directory = temporaryDirectory()
  try {
    const server = await startServer({ dataDirectory: directory })
    const paths = ['/book/1', '/book/2', '/books', '/healthz', '/no-such-route']
    for (const path of paths) await fetch(server.url + path, { headers: authHeaders() })
    assert.equal(await server.stop('SIGTERM'), 0)
    const lines = server
      .output()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { msg: string; path?: string; status?: number; reqId?: string })
    const requests = lines.filter((line) => line.msg === 'request')
    for (const path of paths) {
      assert.ok(requests.some((line) => line.path === path && typeof line.reqId === 'string'), `no request line for ${path}`)
    }
    assert.ok(lines.some((line) => line.msg === 'stopping: finishing in-flight requests'))
  } finally {
    removeDirectory(directory)
  }
})

test('a quiet service writes its last request line without waiting for more lines or its stop', { timeout: 30_000 }, async () => {
  const directory = temporaryDirectory()
  try {
    const server = await startServer({ dataDirectory: directory })
    try {
      const answer = await fetch(server.url + '/book/1', { headers: authHeaders() })
      await answer.arrayBuffer()
      // Waits for the event (the line on standard output); the test's timeout bounds it.
      while (!server.output().split('\n').some((line) => line.includes('"msg":"request"') && line.includes('"path":"/book/1"'))) {
        await new Promise((resolve) => setTimeout(resolve, 20))
      }
    } finally {
      assert.equal(await server.stop('SIGTERM'), 0)
    }
  } finally {
    removeDirectory(directory)
  }
})
