import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { BookServiceError, createClient } from '../../src/client/index.js'
import { signToken } from '../support/app.js'
import { removeDirectory, startServer, temporaryDirectory, type RunningServer } from '../support/server.js'
import { deliveredSeqs, startReceiver, type WebhookReceiver } from '../support/webhook-receiver.js'
import { processSkipReason } from '../support/scope.js'

describe('the typed client: webhooks, against the real server', { skip: processSkipReason }, () => {
  let directory: string
  let server: RunningServer
  let receiver: WebhookReceiver
  before(async () => {
    directory = temporaryDirectory()
    receiver = await startReceiver()
    server = await startServer({ dataDirectory: directory, env: { WEBHOOK_ALLOW_PRIVATE: 'true' } })
  })
  after(async () => {
    await server.stop()
    await receiver.close()
    removeDirectory(directory)
  })

  test('create, list, get, update, deliveries, replay, rotate, delete; an editor gets 403; an unknown id 404', async () => {
    const client = createClient({ baseUrl: server.url, token: signToken({ role: 'admin' }) })
    const created = await client.createWebhook({ url: receiver.url, events: ['created'], description: 'index' })
    receiver.secrets = [created.secret]
    assert.deepEqual((await client.listWebhooks()).map((webhook) => webhook.id), [created.id])
    assert.equal((await client.getWebhook(created.id)).description, 'index')
    const book = await client.createBook({ title: 'Dune', author: 'Frank Herbert', year: 1965 })
    await receiver.waitFor((received) => deliveredSeqs(received).length === 1)
    assert.equal(receiver.received[0]!.payload!.data.id, book.id)
    // Successes are recorded together a moment after they happen (docs/webhooks.md "Delivery").
    let delivery
    for (let tries = 0; tries < 100 && delivery === undefined; tries++) {
      ;[delivery] = await client.listDeliveries(created.id, { limit: 10, status: 'succeeded' })
      if (delivery === undefined) await new Promise((resolve) => setTimeout(resolve, 50))
    }
    assert.deepEqual([delivery!.event, delivery!.status], ['book.created', 'succeeded'])
    await client.replayWebhook(created.id, 0)
    await receiver.waitFor((received) => received.length === 2)
    const rotated = await client.rotateWebhookSecret(created.id, 60)
    assert.match(rotated.secret, /^whsec_/)
    assert.equal((await client.updateWebhook(created.id, { enabled: false })).enabled, false)
    await client.deleteWebhook(created.id)
    const missing = await client.getWebhook(created.id).catch((error: unknown) => error)
    assert.ok(missing instanceof BookServiceError)
    assert.deepEqual([missing.status, missing.message], [404, 'Webhook not found'])
    const editor = createClient({ baseUrl: server.url, token: signToken({ role: 'editor' }) })
    const refused = await editor.listWebhooks().catch((error: unknown) => error)
    assert.deepEqual([(refused as BookServiceError).status, (refused as BookServiceError).message], [403, 'Forbidden'])
  })
})
