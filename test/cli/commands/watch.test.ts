import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { after, before, describe, test } from 'node:test'
import { TEST_SECRET, authHeaders } from '../../support/app.js'
import { runCli } from '../../support/cli.js'
import { eventually } from '../../support/client.js'
import { CLI_ENTRY, removeDirectory, startServer, temporaryDirectory, type RunningServer } from '../../support/server.js'
import { processSkipReason } from '../../support/scope.js'

async function write(url: string, method: string, body?: unknown) {
  const response = await fetch(url, { method, headers: { ...authHeaders(), 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) })
  return ((await response.json()) as { data: { id: number } }).data
}

describe('book-service watch (the built CLI against the real process)', { skip: processSkipReason }, () => {
  let directory: string
  let server: RunningServer
  before(async () => {
    directory = temporaryDirectory()
    server = await startServer({ dataDirectory: directory })
  })
  after(async () => {
    assert.equal(await server.stop(), 0)
    removeDirectory(directory)
  })

  test('prints each change as one NDJSON line, from --after, then live ones; SIGINT exits 0', async () => {
    const first = await write(`${server.url}/book`, 'POST', { title: 'Before', author: 'A', year: 1 })
    // No --token: a reader token signed with the configured secret.
    const child = spawn(process.execPath, [CLI_ENTRY, 'watch', '--url', server.url, '--after', '0'], {
      cwd: directory,
      env: { PATH: process.env.PATH ?? '', SECRET_TOKEN: TEST_SECRET, LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe']
    })
    let stdout = ''
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve))
    try {
      await eventually('the change before it started', async () => stdout.split('\n').length > 1)
      const updated = await write(`${server.url}/book/${first.id}`, 'PUT', { year: 2 })
      await write(`${server.url}/book/${first.id}`, 'DELETE')
      await eventually('the live changes', async () => stdout.split('\n').length > 3)
      const lines = stdout.trimEnd().split('\n').map((line) => JSON.parse(line) as unknown)
      assert.deepEqual(lines, [
        { sequence: 1, type: 'created', id: first.id, book: first },
        { sequence: 2, type: 'updated', id: first.id, book: updated },
        { sequence: 3, type: 'deleted', id: first.id, book: null }
      ])
    } finally {
      child.kill('SIGINT')
    }
    assert.equal(await exited, 0)
  })

  test('a token the service refuses: exit 1 with one line on stderr', async () => {
    const run = await runCli(['watch', '--url', server.url, '--token', 'not-a-token'], { cwd: directory, env: { SECRET_TOKEN: TEST_SECRET } })
    assert.equal(run.code, 1)
    assert.equal(run.stderr, `book-service: watch: ${server.url} refused the change feed: Invalid token\n`)
  })
})
