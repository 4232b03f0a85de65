import assert from 'node:assert/strict'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { test } from 'node:test'
import { ANSWER_READ_LIMIT, endpointAgents, sendAttempt } from '../../src/webhooks/sender.js'

test('a receiver streaming an endless answer: the status counts, 64 KiB of the body are read, then the connection is closed', async () => {
  let written = 0
  let closed = false
  const endless = createServer((request, response) => {
    request.resume()
    response.writeHead(200, { 'content-type': 'text/plain' })
    const chunk = Buffer.alloc(16 * 1024, 'x')
    const pump = () => {
      while (!closed && response.write(chunk)) written += chunk.length
    }
    response.on('drain', pump)
    response.on('close', () => (closed = true))
    pump()
  })
  await new Promise<void>((resolve) => endless.listen(0, '127.0.0.1', resolve))
  try {
    const url = `http://127.0.0.1:${(endless.address() as AddressInfo).port}/hooks`
    const outcome = await sendAttempt(url, {}, '{}', { timeoutMs: 10_000, allowPrivate: true, agents: endpointAgents() })
    // Without the bound the body is read until the attempt's timeout, then a failure.
    assert.deepEqual(outcome, { ok: true, httpStatus: 200, error: null, retryAfterMs: null })
    await new Promise((resolve) => setTimeout(resolve, 200))
    assert.equal(closed, true, 'the receiver saw its connection closed')
    assert.ok(written >= ANSWER_READ_LIMIT, `the receiver wrote ${written} bytes`)
  } finally {
    endless.closeAllConnections()
    await new Promise((resolve) => endless.close(resolve))
  }
})
