import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import fc from 'fast-check'
import { call } from '../support/client.js'
import { removeDirectory, startServer, temporaryDirectory, type RunningServer } from '../support/server.js'

/*
 * Several service processes on one SQLite file (docs/several-instances.md "Running several instances"): whatever
 * one acknowledges, a read that any of them starts afterwards reflects.
 */

describe('three service processes on one SQLite file', () => {
  let directory: string
  let a: RunningServer
  let b: RunningServer
  let c: RunningServer

  before(async () => {
    directory = temporaryDirectory()
    ;[a, b, c] = (await Promise.all([1, 2, 3].map(() => startServer({ dataDirectory: directory })))) as [RunningServer, RunningServer, RunningServer]
  })

  after(async () => {
    const codes = await Promise.all([a, b, c].map((server) => server?.stop('SIGTERM')))
    removeDirectory(directory)
    assert.deepEqual(codes, [0, 0, 0])
  })

  test('B sees A\'s update and delete at once: the new title, then 404, and GET /books agrees', async () => {
    const created = await call(`${a.url}/book`, 'POST', { title: 'A', author: 'Author', year: 2001 })
    assert.equal(created.status, 201)
    const id = created.body.data.id as number
    assert.equal((await call(`${b.url}/book/${id}`)).body.data.title, 'A') // B caches it
    assert.equal((await call(`${a.url}/book/${id}`, 'PUT', { title: 'CHANGED' })).status, 200)
    const changed = await call(`${b.url}/book/${id}`)
    assert.equal(changed.status, 200)
    assert.equal(changed.body.data.title, 'CHANGED')
    assert.deepEqual((await call(`${b.url}/books`)).body.data, [{ id, title: 'CHANGED', author: 'Author', year: 2001 }])
    assert.equal((await call(`${a.url}/book/${id}`, 'DELETE')).status, 200)
    const gone = await call(`${b.url}/book/${id}`)
    assert.deepEqual([gone.status, gone.body.message], [404, 'Book not found'])
    assert.deepEqual((await call(`${b.url}/books`)).body.data, [])
  })

  test('property: concurrent writers and readers over the three processes; every read after an acknowledgement reflects it', async () => {
    const servers = () => [a.url, b.url, c.url]
    /** One step: a write through one process, then reads through every process. */
    type Step = { kind: 'create' | 'update' | 'delete'; via: number; target: number; title: string }
    const step = fc.record({
      kind: fc.constantFrom<Step['kind']>('create', 'update', 'delete'),
      via: fc.integer({ min: 0, max: 2 }),
      target: fc.nat(),
      title: fc.string({ minLength: 1, maxLength: 12 }).filter((title) => title.trim().length > 0)
    })
    await fc.assert(
      fc.asyncProperty(fc.array(fc.array(step, { minLength: 1, maxLength: 6 }), { minLength: 2, maxLength: 3 }), async (lanes) => {
        // Each lane is one client; lanes run at once, each on books of its own, so the expected
        // state of its books is known from its own acknowledgements.
        await Promise.all(
          lanes.map(async (steps) => {
            const mine = new Map<number, string>()
            for (const { kind, via, target, title } of steps) {
              const ids = [...mine.keys()]
              const url = servers()[via]!
              if (kind === 'create' || ids.length === 0) {
                const created = await call(`${url}/book`, 'POST', { title, author: 'P', year: 2000 })
                assert.equal(created.status, 201)
                mine.set(created.body.data.id as number, title)
              } else if (kind === 'update') {
                const id = ids[target % ids.length]!
                assert.equal((await call(`${url}/book/${id}`, 'PUT', { title })).status, 200)
                mine.set(id, title)
              } else {
                const id = ids[target % ids.length]!
                assert.equal((await call(`${url}/book/${id}`, 'DELETE')).status, 200)
                mine.delete(id)
                for (const server of servers()) assert.equal((await call(`${server}/book/${id}`)).status, 404)
              }
              // Every process, read after the acknowledgement: each of this lane's books as last written.
              for (const server of servers()) {
                for (const [id, expected] of mine) {
                  const read = await call(`${server}/book/${id}`)
                  assert.equal(read.status, 200, `${server}/book/${id}`)
                  assert.equal(read.body.data.title, expected, `${server}/book/${id}`)
                }
                const listed = new Map(((await call(`${server}/books`)).body.data as Array<{ id: number; title: string }>).map((book) => [book.id, book.title]))
                for (const [id, expected] of mine) assert.equal(listed.get(id), expected, `${server}/books, book ${id}`)
              }
            }
          })
        )
      }),
      { numRuns: 15 }
    )
  })
})

describe('two service processes started at once on a new SQLite file', () => {
  test('both come up (the migrations take turns), and serve the same books', async () => {
    for (let round = 0; round < 3; round++) {
      const directory = temporaryDirectory()
      try {
        const started = await Promise.allSettled([1, 2].map(() => startServer({ dataDirectory: directory })))
        const servers = started.flatMap((outcome) => (outcome.status === 'fulfilled' ? [outcome.value] : []))
        try {
          for (const outcome of started) if (outcome.status === 'rejected') throw outcome.reason
          const created = await call(`${servers[0]!.url}/book`, 'POST', { title: 'First', author: 'Start', year: 2026 })
          assert.equal(created.status, 201)
          assert.equal((await call(`${servers[1]!.url}/book/${created.body.data.id}`)).body.data.title, 'First')
          for (const server of servers) assert.doesNotMatch(server.output(), /already exists|SQLITE_/)
        } finally {
          assert.deepEqual(await Promise.all(servers.map((server) => server.stop('SIGTERM'))), servers.map(() => 0))
        }
      } finally {
        removeDirectory(directory)
      }
    }
  })
})
