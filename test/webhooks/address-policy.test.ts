import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { isForbiddenAddress, urlRefusal } from '../../src/webhooks/address-policy.js'
import { endpointAgents, sendAttempt } from '../../src/webhooks/sender.js'
import { startReceiver, type WebhookReceiver } from '../support/webhook-receiver.js'

test('forbidden addresses: loopback, RFC 1918, link-local, unique-local, multicast, unspecified, IPv4-mapped', () => {
  for (const address of [
    '127.0.0.1', '127.255.255.254', '10.1.2.3', '172.16.0.1', '172.31.255.255', '192.168.0.1', '169.254.169.254', '100.64.0.1',
    '224.0.0.251', '0.0.0.0', '255.255.255.255', '::1', '::', '::ffff:127.0.0.1', '::ffff:8.8.8.8', 'fe80::1', 'fd12:3456::1', 'ff02::1'
  ]) {
    assert.equal(isForbiddenAddress(address), true, address)
  }
  for (const address of ['8.8.8.8', '1.1.1.1', '172.32.0.1', '192.169.0.1', '2606:4700:4700::1111']) {
    assert.equal(isForbiddenAddress(address), false, address)
  }
})

test('urlRefusal: names resolving to loopback are refused; WEBHOOK_ALLOW_PRIVATE permits them; only http(s)', async () => {
  assert.match((await urlRefusal('http://localhost:8080/x', false))!, /resolves to the private address/)
  assert.match((await urlRefusal('http://[::ffff:7f00:1]/', false))!, /private address/)
  assert.equal(await urlRefusal('http://localhost:8080/x', true), undefined)
  assert.equal(await urlRefusal('http://8.8.8.8/hooks', false), undefined)
  assert.match((await urlRefusal('file:///etc/passwd', true))!, /not an http or https URL/)
})

let receiver: WebhookReceiver
before(async () => {
  receiver = await startReceiver()
})
after(() => receiver.close())

test('at delivery the address connected to is checked again: a name now resolving to loopback gets nothing', async () => {
  const port = new URL(receiver.url).port
  const options = { timeoutMs: 2000, allowPrivate: false, agents: endpointAgents() }
  for (const url of [`http://localhost:${port}/hooks`, `http://127.0.0.1:${port}/hooks`, `http://[::ffff:127.0.0.1]:${port}/hooks`]) {
    const outcome = await sendAttempt(url, {}, '{}', options)
    assert.equal(outcome.ok, false)
    assert.match(outcome.error!, /^refused: /, url)
  }
  assert.equal(receiver.received.length, 0)
  const allowed = await sendAttempt(`http://127.0.0.1:${port}/hooks`, {}, '{}', { ...options, allowPrivate: true })
  assert.equal(allowed.ok, true)
  assert.equal(receiver.received.length, 1)
})

test('a receiver that never answers is a failure after the timeout', async () => {
  receiver.respond = () => 'hang'
  const outcome = await sendAttempt(receiver.url, {}, '{}', { timeoutMs: 300, allowPrivate: true, agents: endpointAgents() })
  assert.deepEqual([outcome.ok, outcome.httpStatus], [false, null])
  assert.match(outcome.error!, /timed out/)
})
