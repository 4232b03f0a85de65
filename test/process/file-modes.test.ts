import assert from 'node:assert/strict'
import { chmodSync, rmSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { authHeaders } from '../support/app.js'
import { removeDirectory, startServer, temporaryDirectory, type RunningServer } from '../support/server.js'

/**
 * Everything the service writes in its data folder is private whatever the umask (docs/operations.md "Files
 * and permissions"): the database, its `-wal` and `-shm`, the database written back after its
 * file was removed, files left with another mode; its folders 0700. Real processes, umask 022.
 */
const auth = { ...authHeaders(), 'content-type': 'application/json' }
const modeOf = (path: string) => (statSync(path).mode & 0o777).toString(8)

async function post(server: RunningServer, title: string): Promise<number> {
  const response = await fetch(`${server.url}/book`, { method: 'POST', headers: auth, body: JSON.stringify({ title, author: 'A', year: 1 }) })
  await response.arrayBuffer()
  return response.status
}

describe('file modes under umask 022 (real process) [sqlite]', () => {
  let directory: string
  let previousUmask: number

  before(() => {
    previousUmask = process.umask(0o022) // the child processes inherit it
    directory = temporaryDirectory()
  })
  after(() => {
    process.umask(previousUmask)
    removeDirectory(directory)
  })

  test('database, -wal, -shm 0600 and folder 0700; written back after rm books.db: 0600, and its -wal after a restart; 0644 files made 0600 at start', async () => {
    const data = join(directory, 'data', 'private')
    const database = join(data, 'books.db')
    const env = { DATABASE_URL: database }
    const server = await startServer({ dataDirectory: directory, env })
    after(() => server.process.exitCode === null && server.process.signalCode === null && server.stop('SIGKILL'))
    assert.equal(await post(server, 'one'), 201)
    assert.deepEqual(
      [join(directory, 'data'), data, database, `${database}-wal`, `${database}-shm`].map(modeOf),
      ['700', '700', '600', '600', '600']
    )

    rmSync(database)
    assert.equal(await post(server, 'refused'), 503) // the removal noticed: the committed data written back
    assert.equal(modeOf(database), '600', 'the database written back holds the password hashes')
    assert.equal(await server.stop('SIGKILL'), 'SIGKILL')

    const restarted = await startServer({ dataDirectory: directory, env })
    assert.equal(await post(restarted, 'two'), 201)
    assert.deepEqual([database, `${database}-wal`, `${database}-shm`].map(modeOf), ['600', '600', '600'])
    assert.equal(await restarted.stop('SIGKILL'), 'SIGKILL')

    for (const file of [database, `${database}-wal`, `${database}-shm`]) chmodSync(file, 0o644)
    const again = await startServer({ dataDirectory: directory, env })
    try {
      assert.deepEqual([database, `${database}-wal`, `${database}-shm`].map(modeOf), ['600', '600', '600'])
      assert.equal(await post(again, 'three'), 201)
    } finally {
      assert.equal(await again.stop(), 0)
    }
  })
})
