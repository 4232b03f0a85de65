import assert from 'node:assert/strict'
import { connect, type Socket } from 'node:net'
import { Readable } from 'node:stream'
import { describe, test } from 'node:test'
import Fastify from 'fastify'
import { SEND_DEADLINE_OPT_OUT, enforceSendDeadline } from '../../../src/http/pipeline/send-deadline.js'
import { removeDirectory, startServer, temporaryDirectory } from '../../support/server.js'
import { processSkipReason } from '../../support/scope.js'

/**
 * The send deadline (docs/operations.md "Reliability and security", `SEND_TIMEOUT`): a connection whose client
 * stops taking what is sent is dropped once nothing moved for the deadline; a client that reads,
 * however slowly, is not; a route that opts out keeps its stalled readers.
 */

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** A connection that sends `requests` and then reads nothing until {@link Stalled.resume}. */
interface Stalled {
  socket: Socket
  /** Reads again; resolves with every byte received once the connection closes or `quietMs` pass without data. */
  resume(quietMs?: number): Promise<{ bytes: number; closed: boolean }>
}

function stalledReader(port: number, requests: string): Stalled {
  const socket = connect({ port, host: '127.0.0.1' })
  let bytes = 0
  let closed = false
  socket.on('data', (chunk: Buffer) => (bytes += chunk.length))
  socket.on('error', () => {})
  socket.on('close', () => (closed = true))
  socket.write(requests)
  socket.pause()
  return {
    socket,
    resume: async (quietMs = 2000) => {
      socket.resume()
      for (let seen = -1; !closed && seen !== bytes; ) {
        seen = bytes
        await sleep(quietMs)
      }
      socket.destroy()
      return { bytes, closed }
    }
  }
}

describe('slow readers (real process)', { skip: processSkipReason }, () => {
  test('a client that stops reading is dropped after SEND_TIMEOUT; one that reads slowly gets everything', async () => {
    const directory = temporaryDirectory()
    const server = await startServer({ dataDirectory: directory, env: { SEND_TIMEOUT: '2' } })
    try {
      const path = '/docs/static/swagger-ui-bundle.js'
      const size = Buffer.byteLength(await (await fetch(`${server.url}${path}`)).text())
      // 20 answers of ~1.5 MB: far more than the kernel's socket buffers hold.
      const requests = `GET ${path} HTTP/1.1\r\nHost: x\r\n\r\n`.repeat(20)
      const stalled = stalledReader(server.port, requests)
      const slow = stalledReader(server.port, `GET ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`)
      // The slow one takes a little every half second: progress, so never dropped.
      const reading = (async () => {
        for (let round = 0; round < 16; round++) {
          slow.socket.resume()
          await sleep(50)
          slow.socket.pause()
          await sleep(450)
        }
        return slow.resume()
      })()
      await sleep(8000) // 4 x SEND_TIMEOUT
      const cut = await stalled.resume()
      assert.ok(cut.closed, 'the stalled connection was dropped')
      assert.ok(cut.bytes < size * 20, `${cut.bytes} of ${size * 20} bytes: not everything was sent`)
      const whole = await reading
      assert.ok(whole.bytes > size, `the slow reader got the whole answer (${whole.bytes} bytes of ${size} + headers)`)
      assert.equal((await fetch(`${server.url}/healthz`)).status, 200)
    } finally {
      assert.equal(await server.stop(), 0)
      removeDirectory(directory)
    }
  })
})

describe('opting out of the send deadline', () => {
  test('a route with SEND_DEADLINE_OPT_OUT keeps its stalled reader; the same answer on another route is dropped', async () => {
    const app = Fastify()
    enforceSendDeadline(app, 1)
    const body = () => Readable.from((function* () { for (let piece = 0; piece < 400; piece++) yield Buffer.alloc(64 * 1024, 'x') })())
    app.get('/stream', { config: SEND_DEADLINE_OPT_OUT }, (_request, reply) => reply.send(body()))
    app.get('/plain', (_request, reply) => reply.send(body()))
    await app.listen({ port: 0, host: '127.0.0.1' })
    try {
      const { port } = app.server.address() as { port: number }
      const ask = (path: string) => stalledReader(port, `GET ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`)
      const exempt = ask('/stream')
      const plain = ask('/plain')
      await sleep(4000)
      const [kept, dropped] = await Promise.all([exempt.resume(), plain.resume()])
      const whole = 400 * 64 * 1024
      assert.ok(kept.bytes > whole, `the opted-out answer arrived whole (${kept.bytes} bytes)`)
      assert.ok(dropped.bytes < whole, `the other one was cut (${dropped.bytes} bytes)`)
    } finally {
      await app.close()
    }
  })
})
