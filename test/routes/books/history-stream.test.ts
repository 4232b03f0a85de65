import assert from 'node:assert/strict'
import { get, type IncomingMessage } from 'node:http'
import { test } from 'node:test'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import type { AddressInfo } from 'node:net'
import type { HistoryEntry } from '../../../src/storage/contracts/book-history.js'
import { authHeaders, buildTestApp, signToken } from '../../support/app.js'
import { engines, openTestDatabase } from '../../support/engines.js'
import { inProcessScopeSkipReason } from '../../support/scope.js'

/*
 * GET /book/{id}/history without `limit` (docs/contract.md "History and restore") read by a client
 * that stops reading: the answer waits for its socket holding text and bytes only, never the
 * history entries the store handed out, and reads no further pages until the client reads again.
 */

setFlagsFromString('--expose-gc')
const collectGarbage = runInNewContext('gc') as () => void

const VERSIONS = 7000
const context = { actor: 'alice', requestId: null }
const token = authHeaders(signToken({ sub: 'carol', role: 'reader' })).authorization!

/** Waits until `count()` has not changed for 300 ms (the server stopped reading: it waits for the socket). */
async function settled(count: () => number): Promise<number> {
  for (let last = -1; ; ) {
    const now = count()
    if (now === last) return now
    last = now
    await new Promise((resolve) => setTimeout(resolve, 300))
  }
}

/** Resolves with the rest of `response`'s body, after `received`. */
function rest(response: IncomingMessage, received: Buffer[]): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    response.on('data', (chunk: Buffer) => received.push(chunk))
    response.on('end', () => resolve(Buffer.concat(received)))
    response.on('error', reject)
    response.resume()
  })
}

for (const { engine, skip } of engines) {
  test(`a client that stops reading a long history: the answer holds no entry and reads no page ahead [${engine}]`, { skip: inProcessScopeSkipReason ?? skip }, async () => {
    const { database, cleanup } = await openTestDatabase(engine)
    const book = await database.books.create({ title: 'Dune', author: 'Frank Herbert', year: 1965 }, context)
    // ~1,100 bytes of JSON per entry (a title and an author of ~500 characters): several MB in all,
    // more than the loopback connection takes while its client reads nothing.
    for (let version = 2; version <= VERSIONS; version += 50) {
      const writes = Array.from({ length: Math.min(50, VERSIONS + 1 - version) }, (_, index) =>
        database.books.update(book.id, { title: `${'Dune '.repeat(98)}${version + index}`, author: 'Frank Herbert '.repeat(35) }, context))
      for (const outcome of await Promise.all(writes)) assert.equal(outcome.status, 'written')
    }
    // Every entry the store hands out, watched: none may stay reachable while the answer waits.
    const read = database.books.history.bind(database.books)
    const handedOut: Array<WeakRef<HistoryEntry>> = []
    database.books.history = async (id, before, limit) => {
      const page = await read(id, before, limit)
      for (const entry of page?.entries ?? []) handedOut.push(new WeakRef(entry))
      return page
    }
    const app = await buildTestApp({}, database)
    let response: IncomingMessage | undefined
    try {
      await app.listen({ host: '127.0.0.1', port: 0 })
      const { port } = app.server.address() as AddressInfo
      // The client takes the first piece, then reads nothing (its socket is no longer read).
      const received: Buffer[] = []
      response = await new Promise<IncomingMessage>((resolve, reject) => {
        get({ host: '127.0.0.1', port, path: `/book/${book.id}/history`, headers: { authorization: token }, agent: false }, (answer) => {
          answer.once('data', (chunk: Buffer) => {
            received.push(chunk)
            answer.pause()
            resolve(answer)
          })
        }).on('error', reject)
      })
      assert.equal(response.statusCode, 200)

      const whileStopped = await settled(() => handedOut.length)
      assert.ok(whileStopped < VERSIONS, `the server read ${whileStopped} of ${VERSIONS} entries while the client read nothing: it waits for the socket`)
      collectGarbage()
      const alive = handedOut.filter((entry) => entry.deref() !== undefined).length
      assert.equal(alive, 0, `${alive} history entries stay reachable while the answer waits for its client`)

      const body = JSON.parse((await rest(response, received)).toString('utf8')) as { data: Array<{ version: number }> }
      assert.deepEqual(body.data.map((entry) => entry.version), Array.from({ length: VERSIONS }, (_, index) => VERSIONS - index))
    } finally {
      response?.destroy()
      await app.close()
      await cleanup()
    }
  })
}
