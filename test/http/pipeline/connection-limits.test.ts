import assert from 'node:assert/strict'
import { request } from 'node:http'
import { connect, type Socket } from 'node:net'
import { describe, test } from 'node:test'
import { removeDirectory, startServer, temporaryDirectory, type RunningServer } from '../../support/server.js'
import { processSkipReason } from '../../support/scope.js'

/**
 * The per-address connection cap (docs/operations.md "Reliability and security", `MAX_CONNECTIONS_PER_ADDRESS`):
 * one address re-opening idle sockets holds at most its cap; clients from other addresses are
 * still served; a proxy trusted by `TRUST_PROXY` is not capped. Against the real process; the
 * addresses are loopback ones (127.0.0.1, 127.0.0.2, …: Linux routes all of 127/8 to loopback).
 */

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Opens a TCP connection from `localAddress`; resolves once connected, with a flag set when it closes. */
function openFrom(port: number, localAddress: string): Promise<{ socket: Socket; closed: () => boolean }> {
  return new Promise((resolve) => {
    const socket = connect({ port, host: '127.0.0.1', localAddress })
    let closed = false
    socket.on('error', () => {})
    socket.on('close', () => (closed = true))
    socket.once('connect', () => resolve({ socket, closed: () => closed }))
  })
}

/** GET /healthz from `localAddress` on a connection of its own; the status, or the error code. */
function healthFrom(server: RunningServer, localAddress: string): Promise<number | string> {
  return new Promise((resolve) => {
    const sent = request({ host: '127.0.0.1', port: server.port, path: '/healthz', localAddress, agent: false }, (response) => {
      response.resume()
      resolve(response.statusCode!)
    })
    sent.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'))
    sent.setTimeout(5000, () => sent.destroy())
    sent.end()
  })
}

describe('connections per client address (real process)', { skip: processSkipReason }, () => {
  test('one address holding idle sockets keeps at most its cap; other addresses are served', async () => {
    const directory = temporaryDirectory()
    const server = await startServer({ dataDirectory: directory, env: { MAX_CONNECTIONS: '20', MAX_CONNECTIONS_PER_ADDRESS: '5', HEADERS_TIMEOUT: '60' } })
    const sockets: Array<{ socket: Socket; closed: () => boolean }> = []
    try {
      // The attacker: 40 idle connections from 127.0.0.3, twice the whole MAX_CONNECTIONS.
      for (let n = 0; n < 40; n++) sockets.push(await openFrom(server.port, '127.0.0.3'))
      await sleep(500)
      const open = sockets.filter((connection) => !connection.closed()).length
      assert.equal(open, 5, `${open} of the attacker's connections are open`)
      // Other clients, each from its own address, are served meanwhile.
      const statuses = await Promise.all(['127.0.0.4', '127.0.0.5', '127.0.0.6', '127.0.0.7'].map((address) => healthFrom(server, address)))
      assert.deepEqual(statuses, [200, 200, 200, 200])
      // A closed connection frees its place for the same address.
      sockets[0]!.socket.destroy()
      await sleep(300)
      const again = await openFrom(server.port, '127.0.0.3')
      sockets.push(again)
      await sleep(300)
      assert.equal(again.closed(), false, 'a freed place is taken again')
    } finally {
      for (const { socket } of sockets) socket.destroy()
      assert.equal(await server.stop(), 0)
      removeDirectory(directory)
    }
  })

  test('a proxy trusted by TRUST_PROXY is not capped', async () => {
    const directory = temporaryDirectory()
    const server = await startServer({ dataDirectory: directory, env: { MAX_CONNECTIONS_PER_ADDRESS: '2', TRUST_PROXY: '127.0.0.8', HEADERS_TIMEOUT: '60' } })
    const sockets: Array<{ socket: Socket; closed: () => boolean }> = []
    try {
      for (let n = 0; n < 6; n++) sockets.push(await openFrom(server.port, '127.0.0.8'))
      for (let n = 0; n < 6; n++) sockets.push(await openFrom(server.port, '127.0.0.9'))
      await sleep(500)
      const open = (address: number) => sockets.slice(address * 6, address * 6 + 6).filter((connection) => !connection.closed()).length
      assert.deepEqual([open(0), open(1)], [6, 2], 'the trusted proxy keeps all six; another address two')
    } finally {
      for (const { socket } of sockets) socket.destroy()
      assert.equal(await server.stop(), 0)
      removeDirectory(directory)
    }
  })
})
