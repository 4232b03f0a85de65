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

    const added = await runCli(['webhooks', 'add', receiver.url, '--events', 'created', '--description', 'cli', '--json'], {
      cwd: directory, env: { ...env, WEBHOOK_ALLOW_PRIVATE: 'true' }
    })
    assert.equal(added.code, 0, added.stderr)
    const endpoint = JSON.parse(added.stdout) as { id: string; secret: string; events: string[]; enabled: boolean }
    assert.deepEqual([endpoint.events, endpoint.enabled], [['created'], true])
    receiver.secrets = [endpoint.secret]

    // For people: the aligned table; for programs: --json, one endpoint a line. The secret in neither.
    const listed = await runCli(['webhooks', 'list'], { cwd: directory, env })
    assert.equal(listed.code, 0)
    assert.match(listed.stdout, /^ID +ENABLED +EVENTS +URL +DISABLED_REASON\n/)
    assert.match(listed.stdout, new RegExp(`^${endpoint.id} +true +created +${receiver.url.replaceAll('.', '\\.')}$`, 'm'))
    const listedJson = await runCli(['webhooks', 'list', '--json'], { cwd: directory, env })
    assert.deepEqual(
      listedJson.stdout.trimEnd().split('\n').map((line) => JSON.parse(line) as { id: string; events: string[]; description: string }).map((view) => [view.id, view.events, view.description]),
      [[endpoint.id, ['created'], 'cli']]
    )
    assert.doesNotMatch(listed.stdout + listedJson.stdout, /whsec_/)
    const shown = await runCli(['webhooks', 'add', receiver.url, '--events', 'deleted'], { cwd: directory, env: { ...env, WEBHOOK_ALLOW_PRIVATE: 'true' } })
    assert.match(shown.stdout, /^ID +ENABLED +EVENTS +URL +SECRET\n\S+ +true +deleted +\S+ +whsec_\S+\n$/)
    assert.equal((await runCli(['webhooks', 'remove', shown.stdout.split('\n')[1]!.split(' ')[0]!], { cwd: directory, env })).code, 0)

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
    assert.match(deliveries.stdout, /^\d+ +1 +book\.created +1 +succeeded +204 +\S+Z$/m)
    const deliveriesJson = await runCli(['webhooks', 'deliveries', endpoint.id, '--json'], { cwd: directory, env })
    assert.deepEqual(
      deliveriesJson.stdout.trimEnd().split('\n').map((line) => JSON.parse(line) as { seq: number; status: string; http_status: number }).map((row) => [row.seq, row.status, row.http_status]),
      [[1, 'succeeded', 204]]
    )

    assert.equal((await runCli(['webhooks', 'remove', endpoint.id], { cwd: directory, env })).code, 0)
    const gone = await runCli(['webhooks', 'remove', endpoint.id], { cwd: directory, env })
    assert.deepEqual([gone.code, gone.stderr.trim()], [1, 'book-service: Webhook not found'])
    const missing = await runCli(['webhooks', 'deliveries', endpoint.id], { cwd: directory, env })
    assert.equal(missing.code, 1)
  })
})
