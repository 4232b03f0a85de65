import assert from 'node:assert/strict'
import { execFileSync, spawn } from 'node:child_process'
import { readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { connect } from 'node:net'
import { dirname, join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { authHeaders, signToken } from '../support/app.js'
import { freePort, removeDirectory, startServer, temporaryDirectory, type RunningServer } from '../support/server.js'

const README = readFileSync(new URL('../../README.md', import.meta.url), 'utf8')

/** The README's `sh` block holding `marker`, verbatim. */
function shellExample(marker: string): string {
  const block = [...README.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1]!).find((text) => text.includes(marker))
  assert.ok(block, `the README has a sh block with ${marker}`)
  return block
}

/** The README's receiver example: the `js` block of its Webhooks section, verbatim. */
function receiverExample(): string {
  const section = README.slice(README.indexOf('## Webhooks'))
  const match = /```js\n([\s\S]*?)```/.exec(section)
  assert.ok(match, 'the README Webhooks section has a js receiver')
  return match[1]!
}

/** Whether something on 127.0.0.1 accepts a TCP connection on `port` now. */
function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1')
    socket.once('connect', () => (socket.destroy(), resolve(true)))
    socket.once('error', () => resolve(false))
  })
}

describe('the README receiver example verifies real deliveries', () => {
  let directory: string
  let server: RunningServer
  before(async () => {
    directory = temporaryDirectory()
    // The example imports `standardwebhooks` as an installed package would be found.
    symlinkSync(new URL('../../node_modules', import.meta.url).pathname, join(directory, 'node_modules'))
    // As the README says to start it for a receiver on this machine, on a fresh clone's defaults.
    server = await startServer({ dataDirectory: directory, env: { WEBHOOK_ALLOW_PRIVATE: 'true', DATABASE_URL: '', AUTH_PASSWORD: '' } })
  })
  after(async () => {
    await server.stop()
    removeDirectory(directory)
  })

  test('the endpoint added as pasted (the walk-through\'s login, then the curl): the receiver prints each verified event; a wrong secret answers 400', async () => {
    writeFileSync(join(directory, 'receiver.mjs'), receiverExample())
    const port = await freePort()
    // The walk-through's step 1 sets $TOKEN; the Webhooks section's curl adds the receiver on port 3000.
    const login = shellExample('# 1. Log in').split('# 2.')[0]!
    const add = shellExample('/webhooks -H')
    const script = (login + add).replaceAll('localhost:8080', `127.0.0.1:${server.port}`).replaceAll('127.0.0.1:3000', `127.0.0.1:${port}`)
    const output = execFileSync('bash', ['-e', '-c', script], {
      cwd: directory,
      encoding: 'utf8',
      env: { PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}` }
    })
    const answer = JSON.parse(output) as { status: number; message: string; data: { id: string; secret: string } }
    assert.equal(answer.status, 201, output)
    assert.equal(answer.message, 'Webhook created successfully')
    const { id, secret } = answer.data
    assert.match(secret, /^whsec_/)
    const receiver = spawn(process.execPath, ['receiver.mjs'], { cwd: directory, env: { WEBHOOK_SECRET: secret, PORT: String(port) } })
    let printed = ''
    let complained = ''
    receiver.stdout.on('data', (chunk: Buffer) => (printed += chunk.toString()))
    receiver.stderr.on('data', (chunk: Buffer) => (complained += chunk.toString()))
    try {
      // The write below is delivered at once: wait until the receiver accepts connections.
      while (!(await accepts(port))) await new Promise((resolve) => setTimeout(resolve, 50))
      const editor = { ...authHeaders(signToken({ role: 'editor' })), 'content-type': 'application/json' }
      const created = await fetch(`${server.url}/book`, { method: 'POST', headers: editor, body: JSON.stringify({ title: 'Dune', author: 'Frank Herbert', year: 1965 }) })
      assert.equal(created.status, 201, await created.text())
      const deadline = Date.now() + 15_000
      while (!printed.includes('book.created') && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100))
      assert.match(
        printed,
        new RegExp(`^msg_${id}_\\d+ book\\.created \\d+ \\{"id":1,"title":"Dune","author":"Frank Herbert","year":1965\\}$`, 'm'),
        `the receiver printed ${JSON.stringify(printed)}; its stderr: ${complained}; the service's webhook log lines:\n${server.stdout().split('\n').filter((line) => line.includes('webhook')).join('\n')}`
      )
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
