import assert from 'node:assert/strict'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import { authHeaders, buildTestApp } from '../../support/app.js'
import { createBook } from '../../support/books.js'
import { finishingOrder } from '../../support/list-pages.js'
import { removeDirectory, temporaryDirectory } from '../../support/server.js'
import { SqliteDatabase } from '../../../src/storage/sqlite/sqlite-database.js'

const auth = authHeaders()

/** Every thread of this process: its id and nice value (`/proc/self/task/<tid>/stat`, field 19). */
function threadNiceValues(): Map<number, number> {
  const threads = new Map<number, number>()
  for (const tid of readdirSync('/proc/self/task')) {
    try {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8')
      // Fields after the command's closing parenthesis start at field 3 (state); nice is field 19.
      threads.set(Number(tid), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]))
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return threads
}

test('a SQLite file runs its searches on a reader thread at nice 10, below the thread that answers requests (Linux)', { skip: process.platform !== 'linux' && 'nice values per thread are Linux\'s' }, async () => {
  const directory = temporaryDirectory()
  const app = await buildTestApp({}, await SqliteDatabase.open(join(directory, 'books.db')))
  try {
    const created = await app.inject({ method: 'POST', url: '/book', headers: auth, payload: { title: 'The collected works', author: 'A', year: 1900 } })
    assert.equal(created.statusCode, 201, created.body)
    const before = threadNiceValues()
    const searched = await app.inject({ url: '/books?q=works&limit=20', headers: auth })
    assert.equal(searched.statusCode, 200, searched.body)
    assert.deepEqual(searched.json().data.map((book: { title: string }) => book.title), ['The collected works'])
    const after = threadNiceValues()
    const lowered = [...after].filter(([tid, nice]) => !before.has(tid) && nice === 10)
    assert.equal(lowered.length, 1, `threads started by the search and their nice values: ${JSON.stringify([...after].filter(([tid]) => !before.has(tid)))}`)
    assert.equal(after.get(process.pid), 0, 'the main thread keeps nice 0')
    assert.ok([...before.values()].every((nice) => nice === 0), `before the first search no thread is lowered: ${JSON.stringify([...before])}`)
  } finally {
    await app.close()
    removeDirectory(directory)
  }
})

test('a SQLite file reads substring filters and counts on the reader thread: a point read beside them finishes first, the answers unchanged', async () => {
  const directory = temporaryDirectory()
  // Every filtered read at once (none waits for a turn).
  const app = await buildTestApp({ HEAVY_READS: 8 }, await SqliteDatabase.open(join(directory, 'books.db')))
  try {
    for (let i = 1; i <= 300; i++) await createBook(app, { title: `The collected works, volume ${i}`, author: `Author number ${i % 7}`, year: 1900 })
    // `zz` is in no title nor author: each filtered page reads every book and finds none.
    const urls = ['/books?title=zz&limit=20', '/books?author=zz&limit=20', '/books?limit=20&count=true', '/books?title=zz&year=1900&limit=5&count=true']
    const order = await finishingOrder(app, urls)
    assert.equal(order[0], 'point read', order.join(', '))
    const counted = await app.inject({ url: '/books?author=number%203&limit=2&count=true', headers: auth })
    assert.equal(counted.statusCode, 200, counted.body)
    assert.equal(counted.headers['x-total-count'], '43')
    assert.deepEqual(counted.json().data.map((book: { id: number }) => book.id), [3, 10])
    const none = await app.inject({ url: '/books?title=zz&limit=20&count=true', headers: auth })
    assert.deepEqual([none.statusCode, none.headers['x-total-count'], none.json().data], [200, '0', []])
  } finally {
    await app.close()
    removeDirectory(directory)
  }
})
