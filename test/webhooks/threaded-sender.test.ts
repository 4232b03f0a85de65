import assert from 'node:assert/strict'
import { createServer, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { test } from 'node:test'
import { ThreadedSender } from '../../src/webhooks/threaded-sender.js'

/** A receiver on 127.0.0.1: `/ok` answers 204 and notes each request's connection; `/hang` never answers. */
async function startReceiver() {
  const connections: number[] = []
  const hanging: ServerResponse[] = []
  let arrivedHanging: () => void = () => {}
  const hangingArrived = new Promise<void>((resolve) => (arrivedHanging = resolve))
  const ports = new Map<object, number>()
  const server = createServer((request, response) => {
    request.resume()
    request.on('end', () => {
      if (!ports.has(request.socket)) ports.set(request.socket, ports.size)
      connections.push(ports.get(request.socket)!)
      if (request.url === '/hang') {
        hanging.push(response)
        arrivedHanging()
        return
      }
      response.writeHead(request.headers['webhook-id'] === 'gone' ? 410 : 204).end()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    connections,
    hangingArrived,
    close: async () => {
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
    }
  }
}

const settings = { timeoutMs: 10_000, allowPrivate: true }

test('attempts sent from the sender thread: outcomes come back; one endpoint reuses one connection', async () => {
  const receiver = await startReceiver()
  const sender = new ThreadedSender()
  try {
    const signal = new AbortController().signal
    for (let index = 0; index < 3; index++) {
      assert.deepEqual(await sender.send('ep-1', `${receiver.url}/ok`, { 'webhook-id': `msg_${index}` }, '{}', { ...settings, signal }), {
        ok: true, httpStatus: 204, error: null, retryAfterMs: null
      })
    }
    assert.deepEqual(await sender.send('ep-1', `${receiver.url}/ok`, { 'webhook-id': 'gone' }, '{}', { ...settings, signal }), {
      ok: false, httpStatus: 410, error: 'answered 410', retryAfterMs: null
    })
    assert.deepEqual(receiver.connections, [0, 0, 0, 0])
    const refused = await sender.send('ep-2', 'http://127.0.0.1:1/ok', {}, '{}', { ...settings, allowPrivate: false, signal })
    assert.equal(refused.ok, false)
    assert.match(refused.error ?? '', /^refused: 127\.0\.0\.1 is a special-purpose address/)
  } finally {
    await sender.close()
    await receiver.close()
  }
})

test('an attempt in flight: cut by its signal, or failed when the thread stops; the next attempt starts a new thread', async () => {
  const receiver = await startReceiver()
  const sender = new ThreadedSender()
  try {
    const controller = new AbortController()
    const cut = sender.send('ep-1', `${receiver.url}/hang`, {}, '{}', { ...settings, signal: controller.signal })
    await receiver.hangingArrived
    controller.abort()
    assert.deepEqual(await cut, { ok: false, httpStatus: null, error: 'stopped', retryAfterMs: null })

    const signal = new AbortController().signal
    const inFlight = sender.send('ep-1', `${receiver.url}/hang`, {}, '{}', { ...settings, signal })
    await sender.close()
    assert.deepEqual(await inFlight, { ok: false, httpStatus: null, error: 'stopped', retryAfterMs: null })
    assert.equal((await sender.send('ep-1', `${receiver.url}/ok`, {}, '{}', { ...settings, signal })).ok, true)
  } finally {
    await sender.close()
    await receiver.close()
  }
})
