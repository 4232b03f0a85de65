import assert from 'node:assert/strict'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { authHeaders, signToken } from '../../support/app.js'
import { runCli } from '../../support/cli.js'
import { removeDirectory, startServer, temporaryDirectory } from '../../support/server.js'
import { deliveredSeqs, startReceiver, type WebhookReceiver } from '../../support/webhook-receiver.js'
import { processSkipReason } from '../../support/scope.js'

describe('book-service webhooks list|add|remove|deliveries (the built CLI)', { skip: processSkipReason }, () => {
  let directory: string
  let env: Record<string, string>
  let receiver: WebhookReceiver
  before(async () => {
    directory = temporaryDirectory()
    env = { DATABASE_URL: join(directory, 'books.db') }
    receiver = await startReceiver()
  })
  after(async () => {
    await receiver.close()
    removeDirectory(directory)
  })

  test('add refuses a private address without WEBHOOK_ALLOW_PRIVATE; with it, the endpoint receives what a running service writes', async () => {
    const refused = await runCli(['webhooks', 'add', receiver.url], { cwd: directory, env })
    assert.equal(refused.code, 1)
    assert.match(refused.stderr, /Invalid input: 127\.0\.0\.1 is a special-purpose address \(loopback\)/)
    const bad = await runCli(['webhooks', 'add', receiver.url, '--events', 'created,moved'], { cwd: directory, env })
    assert.equal(bad.code, 1)

    const added = await runCli(['webhooks', 'add', receiver.url, '--events', 'created', '--description', 'cli'], {
      cwd: directory, env: { ...env, WEBHOOK_ALLOW_PRIVATE: 'true' }
    })
    assert.equal(added.code, 0, added.stderr)
    const endpoint = JSON.parse(added.stdout) as { id: string; secret: string; events: string[]; enabled: boolean }
    assert.deepEqual([endpoint.events, endpoint.enabled], [['created'], true])
    receiver.secrets = [endpoint.secret]

    const listed = await runCli(['webhooks', 'list'], { cwd: directory, env })
    assert.equal(listed.code, 0)
    assert.match(listed.stdout, new RegExp(`^${endpoint.id}\\ttrue\\tcreated\\t${receiver.url.replaceAll('.', '\\.')}\\t$`, 'm'))
    assert.doesNotMatch(listed.stdout, /whsec_/)

    const server = await startServer({ dataDirectory: directory, env: { WEBHOOK_ALLOW_PRIVATE: 'true' } })
    try {
      const response = await fetch(`${server.url}/book`, {
        method: 'POST',
        headers: { ...authHeaders(signToken({ role: 'editor' })), 'content-type': 'application/json' },
        body: JSON.stringify({ title: 'Dune', author: 'Frank Herbert', year: 1965 })
      })
      assert.equal(response.status, 201)
      await receiver.waitFor((received) => deliveredSeqs(received).length === 1)
      await new Promise((resolve) => setTimeout(resolve, 300))
    } finally {
      await server.stop()
    }
    const deliveries = await runCli(['webhooks', 'deliveries', endpoint.id], { cwd: directory, env })
    assert.equal(deliveries.code, 0, deliveries.stderr)
    assert.match(deliveries.stdout, /^\d+\t1\tbook\.created\t1\tsucceeded\t204\t/m)

    assert.equal((await runCli(['webhooks', 'remove', endpoint.id], { cwd: directory, env })).code, 0)
    const gone = await runCli(['webhooks', 'remove', endpoint.id], { cwd: directory, env })
    assert.deepEqual([gone.code, gone.stderr.trim()], [1, 'book-service: Webhook not found'])
    const missing = await runCli(['webhooks', 'deliveries', endpoint.id], { cwd: directory, env })
    assert.equal(missing.code, 1)
  })
})
