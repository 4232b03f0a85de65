import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { authHeaders, signToken } from '../support/app.js'
import { freePort, removeDirectory, startServer, temporaryDirectory, type RunningServer } from '../support/server.js'

const README = readFileSync(new URL('../../README.md', import.meta.url), 'utf8')

/** The README's receiver example: the `js` block of its Webhooks section, verbatim. */
function receiverExample(): string {
  const section = README.slice(README.indexOf('## Webhooks'))
  const match = /```js\n([\s\S]*?)```/.exec(section)
  assert.ok(match, 'the README Webhooks section has a js receiver')
  return match[1]!
}

describe('the README receiver example verifies real deliveries', () => {
  let directory: string
  let server: RunningServer
  before(async () => {
    directory = temporaryDirectory()
    // The example imports `standardwebhooks` as an installed package would be found.
    symlinkSync(new URL('../../node_modules', import.meta.url).pathname, join(directory, 'node_modules'))
    server = await startServer({ dataDirectory: directory, env: { WEBHOOK_ALLOW_PRIVATE: 'true' } })
  })
  after(async () => {
    await server.stop()
    removeDirectory(directory)
  })

  test('it prints each verified event; a wrong secret answers 400', async () => {
    writeFileSync(join(directory, 'receiver.mjs'), receiverExample())
    const port = await freePort()
    const admin = { ...authHeaders(signToken({ role: 'admin' })), 'content-type': 'application/json' }
    const created = await fetch(`${server.url}/webhooks`, { method: 'POST', headers: admin, body: JSON.stringify({ url: `http://127.0.0.1:${port}/` }) })
    const { id, secret } = ((await created.json()) as { data: { id: string; secret: string } }).data
    const receiver = spawn(process.execPath, ['receiver.mjs'], { cwd: directory, env: { WEBHOOK_SECRET: secret, PORT: String(port) } })
    let printed = ''
    receiver.stdout.on('data', (chunk: Buffer) => (printed += chunk.toString()))
    try {
      await new Promise((resolve) => setTimeout(resolve, 1000))
      const editor = { ...authHeaders(signToken({ role: 'editor' })), 'content-type': 'application/json' }
      await fetch(`${server.url}/book`, { method: 'POST', headers: editor, body: JSON.stringify({ title: 'Dune', author: 'Frank Herbert', year: 1965 }) })
      const deadline = Date.now() + 15_000
      while (!printed.includes('book.created') && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100))
      assert.match(printed, new RegExp(`^msg_${id}_\\d+ book\\.created \\d+ \\{"id":1,"title":"Dune","author":"Frank Herbert","year":1965\\}$`, 'm'))
      const forged = await fetch(`http://127.0.0.1:${port}/`, {
        method: 'POST',
        headers: { 'webhook-id': 'msg_x', 'webhook-timestamp': String(Math.floor(Date.now() / 1000)), 'webhook-signature': 'v1,AAAA' },
        body: '{}'
      })
      assert.equal(forged.status, 400)
    } finally {
      receiver.kill()
    }
  })
})
