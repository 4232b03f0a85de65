import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { Book } from '../../../src/book/schema.js'
import { StorageUnavailableError } from '../../../src/storage/contracts/database.js'
import type { BookReads } from '../../../src/storage/contracts/read-replicas.js'
import { withFallback } from '../../../src/storage/postgres/postgres-replicas.js'

// docs/several-instances.md "Read replicas": a replica that fails a read (unreachable, a recovery
// conflict) is replaced by the primary for that read; a statement stopped at the bound is not repeated.

const book = (id: number, title: string): Book => ({ id, title, author: 'A', year: 2000 })

/** Reads that answer `title` for every book, or fail each read with `failure` (a list after `yieldFirst` books). */
function reads(title: string, failure?: unknown, yieldFirst = 0): BookReads {
  const fail = async () => {
    if (failure !== undefined) throw failure
  }
  return {
    get: async (id) => (await fail(), { ...book(id, title), version: 1 }),
    count: async () => (await fail(), 1),
    history: async () => (await fail(), undefined),
    hasHistory: async () => (await fail(), true),
    async *list() {
      for (let n = 1; n <= yieldFirst; n++) yield book(n, title)
      await fail()
      yield book(yieldFirst + 1, title)
    }
  }
}

async function titles(list: AsyncIterable<Book>): Promise<string[]> {
  const seen: string[] = []
  for await (const entry of list) seen.push(entry.title)
  return seen
}

test('a recovery conflict or an unreachable replica: the primary answers, and the fallback is told', async () => {
  const conflict = Object.assign(new Error('canceling statement due to conflict with recovery'), { code: '40001' })
  const unreachable = new StorageUnavailableError('PostgreSQL is unreachable')
  for (const failure of [conflict, unreachable]) {
    const told: unknown[] = []
    const routed = withFallback(reads('replica', failure), reads('primary'), (error) => told.push(error))
    assert.equal((await routed.get(1))!.title, 'primary')
    assert.equal(await routed.count({}), 1)
    assert.equal(await routed.hasHistory(1), true)
    assert.deepEqual(await titles(routed.list()), ['primary'])
    assert.equal(told.length, 4)
    assert.equal(told[0], failure)
  }
})

test('a healthy replica answers by itself', async () => {
  const routed = withFallback(reads('replica'), reads('primary'), () => assert.fail('no fallback'))
  assert.equal((await routed.get(1))!.title, 'replica')
  assert.deepEqual(await titles(routed.list()), ['replica'])
})

test('a statement stopped at the bound, another error, or a list that failed after its first book: the error, not the primary', async () => {
  const stopped = new StorageUnavailableError('PostgreSQL stopped a statement at the query bound', { retryAfterSeconds: 10 })
  const bug = Object.assign(new Error('column does not exist'), { code: '42703' })
  for (const failure of [stopped, bug]) {
    const routed = withFallback(reads('replica', failure), reads('primary'), () => assert.fail('no fallback'))
    await assert.rejects(routed.get(1), (error) => error === failure)
  }
  const conflict = Object.assign(new Error('conflict with recovery'), { code: '40001' })
  const routed = withFallback(reads('replica', conflict, 1), reads('primary'), () => assert.fail('no fallback once a book was yielded'))
  const seen: string[] = []
  await assert.rejects(async () => {
    for await (const entry of routed.list()) seen.push(entry.title)
  }, (error) => error === conflict)
  assert.deepEqual(seen, ['replica'])
})

test('a consumer that stops a list early ends the replica\'s list too', async () => {
  let ended = false
  const replica: BookReads = {
    ...reads('replica'),
    async *list() {
      try {
        for (let n = 1; ; n++) yield book(n, 'replica')
      } finally {
        ended = true
      }
    }
  }
  const routed = withFallback(replica, reads('primary'), () => assert.fail('no fallback'))
  for await (const entry of routed.list()) if (entry.id === 2) break
  assert.equal(ended, true)
})
