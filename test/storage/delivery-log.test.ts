import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { FastifyInstance } from 'fastify'
import type { Database } from '../../src/storage/contracts/database.js'
import type { DeliveryOutcome, DeliveryStatus } from '../../src/storage/contracts/webhook-store.js'
import { trimDeliveries } from '../../src/storage/retention.js'
import { authHeaders, buildTestApp, signToken } from '../support/app.js'
import { engines, openTestDatabase } from '../support/engines.js'

const admin = authHeaders(signToken({ role: 'admin' }))
const DAY_MS = 24 * 60 * 60 * 1000
const THIRTY_DAYS_S = 30 * 24 * 60 * 60

/** A delivery of change `seq` to `endpointId`, last tried at `at` (ms since the epoch). */
function delivery(endpointId: string, seq: number, status: DeliveryStatus, at: number): DeliveryOutcome {
  return {
    endpointId, seq, event: 'book.updated', webhookId: `msg_${seq}_${at}`, attempt: 1, status,
    httpStatus: status === 'succeeded' ? 200 : 500, error: status === 'succeeded' ? null : 'HTTP 500', at, nextAttemptAt: status === 'pending' ? at + 5000 : null
  }
}

/** Every page of the endpoint's delivery log through the API, `limit` at a time: the deliveries' (seq, id), in order. */
async function listed(app: FastifyInstance, id: string, query: string): Promise<Array<[number, number]>> {
  const seen: Array<[number, number]> = []
  let url: string | undefined = `/webhooks/${id}/deliveries?${query}`
  while (url !== undefined) {
    const path: string = url
    const response = await app.inject({ method: 'GET', url: path, headers: admin })
    assert.equal(response.statusCode, 200, response.body)
    seen.push(...(response.json().data as Array<{ seq: number; id: number }>).map((entry): [number, number] => [entry.seq, entry.id]))
    const link: string = String(response.headers.link ?? '')
    url = /^<([^>]+)>; rel="next"$/.exec(link)?.[1]
  }
  return seen
}

for (const { engine, skip } of engines) {
  describe(`webhook delivery log: newest first by seq, trimmed after WEBHOOK_DELIVERY_MAX_AGE [${engine}] (docs/webhooks.md "Delivery log")`, { skip }, () => {
    let database: Database
    let cleanup: () => Promise<void>
    let app: FastifyInstance
    const endpointId = 'wh_log'

    before(async () => {
      const opened = await openTestDatabase(engine)
      database = opened.database
      cleanup = opened.cleanup
      app = await buildTestApp({}, database)
      // Disabled: the dispatcher never sends anything for it; its log is written below as the dispatcher would.
      await database.webhooks.create({
        id: endpointId, url: 'https://receiver.example/hook', events: ['created', 'updated', 'deleted'], description: null, enabled: false,
        disabledReason: 'disabled by an admin', secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', previousSecret: null, previousSecretUntil: null,
        createdAt: new Date().toISOString(), seq: 0
      })
    })

    after(async () => {
      await app?.close()
      await cleanup?.()
    })

    test('the listing is newest first by seq, then the latest row, whatever order the rows were written in; every page through the cursor', async () => {
      const now = Date.now()
      // Written in this order: 21, 22, then 24 before 23 (endpoints run in parallel with replays), then 22 again (a replay).
      const [id21, id22, id24, id23, id22again] = await database.webhooks.record(
        [21, 22, 24, 23, 22].map((seq) => delivery(endpointId, seq, 'succeeded', now)),
        []
      )
      const expected: Array<[number, number]> = [[24, id24!], [23, id23!], [22, id22again!], [22, id22!], [21, id21!]]
      assert.deepEqual(await listed(app, endpointId, 'limit=100'), expected)
      assert.deepEqual(await listed(app, endpointId, 'limit=2'), expected, 'the same through pages of 2')
      assert.deepEqual(await listed(app, endpointId, 'limit=1&status=succeeded'), expected, 'filtered by status, page by page')
      const stale = await app.inject({ method: 'GET', url: `/webhooks/${endpointId}/deliveries?cursor=${id22!}`, headers: admin })
      assert.equal(stale.statusCode, 400, 'a cursor is the seq and id the Link header gives')
    })

    test('finished entries older than the age are removed, pending ones and younger ones kept; the pending one is still found', async () => {
      const now = Date.now()
      const [oldSucceeded, oldFailed, oldPending, young] = await database.webhooks.record(
        [
          delivery(endpointId, 101, 'succeeded', now - 31 * DAY_MS),
          delivery(endpointId, 102, 'failed', now - 31 * DAY_MS),
          delivery(endpointId, 103, 'pending', now - 31 * DAY_MS),
          delivery(endpointId, 104, 'succeeded', now - 29 * DAY_MS)
        ],
        []
      )
      const before = await listed(app, endpointId, 'limit=1000')
      assert.equal(await trimDeliveries(database.webhooks, THIRTY_DAYS_S, now), 2)
      const kept = await listed(app, endpointId, 'limit=1000')
      assert.deepEqual(kept, before.filter(([, id]) => id !== oldSucceeded && id !== oldFailed))
      assert.ok(kept.some(([, id]) => id === oldPending) && kept.some(([, id]) => id === young))
      assert.equal((await database.webhooks.pending(endpointId, 100))?.id, oldPending)
      assert.equal(await trimDeliveries(database.webhooks, THIRTY_DAYS_S, now), 0, 'nothing left to trim')
    })

    test('a log longer than one batch is trimmed to the end', async () => {
      const now = Date.now()
      const old = Array.from({ length: 2500 }, (_, index) => delivery('wh_long', 1 + index, 'succeeded', now - 40 * DAY_MS))
      await database.webhooks.record(old, [])
      assert.equal(await trimDeliveries(database.webhooks, THIRTY_DAYS_S, now), 2500)
    })
  })
}
