import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { TEST_PASSWORD } from '../support/app.js'
import { removeDirectory, SERVER_ENTRY, startServer, temporaryDirectory } from '../support/server.js'

/**
 * Starts of the process: 8 in `npm test` (the forced collections make each start hit the timing that
 * crashed); `npm run test:restarts` runs 40.
 */
const RESTARTS = Number(process.env.RESTARTS ?? 8)
const GC_PRESSURE = new URL('../support/gc-pressure.mjs', import.meta.url).pathname

let directory: string
before(() => {
  directory = temporaryDirectory()
})
after(() => removeDirectory(directory))

// Regression for the SIGABRT of better-sqlite3 12 on Node 24: restarts on one SQLite file died at
// random (a statement finalized after the writer thread's environment was gone). Collections are
// forced around start-up, while serving and at exit, so the timing that crashed is hit every time.
test(`the real process, started ${RESTARTS} times on one SQLite file under forced GC, serves a durable write each time and exits 0 on SIGTERM`, async (t) => {
  const codes: (number | string)[] = []
  for (let start = 1; start <= RESTARTS; start++) {
    // One login per start, more than LOGIN_RATE_LIMIT's default a minute: the count is kept in the database across starts.
    const server = await startServer({ dataDirectory: directory, env: { LOGIN_RATE_LIMIT: '1000' }, command: ['--expose-gc', '--import', GC_PRESSURE, SERVER_ENTRY] })
    const login = await fetch(`${server.url}/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'admin', password: TEST_PASSWORD })
    })
    const { data } = (await login.json()) as { data: { token: string } }
    const created = await fetch(`${server.url}/book`, {
      method: 'POST',
      headers: { authorization: `Bearer ${data.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ title: `Start ${start}`, author: 'Restart', year: 2000 + start })
    })
    assert.equal(created.status, 201, await created.text())
    const listed = await fetch(`${server.url}/books`, { headers: { authorization: `Bearer ${data.token}` } })
    const books = ((await listed.json()) as { data: { title: string }[] }).data
    assert.deepEqual(books.map((book) => book.title), Array.from({ length: start }, (_, i) => `Start ${i + 1}`))
    const code = await server.stop('SIGTERM')
    codes.push(code)
    assert.equal(code, 0, `start ${start} exited ${code}:\n${server.output()}`)
  }
  assert.deepEqual(codes, Array(RESTARTS).fill(0))
  t.diagnostic(`Node.js ${process.version}: ${RESTARTS} starts on one SQLite file under forced GC, exit codes ${codes.join(' ')}`)
})
