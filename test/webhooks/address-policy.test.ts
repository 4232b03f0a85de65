import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { urlRefusal } from '../../src/webhooks/address-policy.js'
import { specialPurposeRange } from '../../src/webhooks/address-ranges.js'
import { endpointAgents, sendAttempt } from '../../src/webhooks/sender.js'
import { startReceiver, type WebhookReceiver } from '../support/webhook-receiver.js'

/** The addresses, and more of each IANA range that is not globally reachable. */
const REFUSED = [
  '127.0.0.1', '127.255.255.254', '10.1.2.3', '172.16.0.1', '172.31.255.255', '192.168.0.1', '169.254.169.254', '100.64.0.1',
  '224.0.0.251', '0.0.0.0', '0.1.2.3', '255.255.255.255', '240.0.0.1', '192.0.0.8', '192.0.0.170',
  // Documentation, benchmarking (IPv4 and IPv6), and the IETF protocol assignments.
  '192.0.2.1', '198.51.100.7', '203.0.113.200', '198.18.0.1', '198.19.255.255', '2001:db8::1', '2001:db8:ffff::1', '2001:2::1',
  '3fff::1', '2001::1', '2001:1ff:ffff::1', '2001:10::1',
  // Discard-only, dummy, segment routing, local-use NAT64.
  '100::1', '100::ffff:ffff:ffff:ffff', '100:0:0:1::1', '5f00::1', '5f00:ffff::1', '64:ff9b:1::1', '64:ff9b:1:ffff::1',
  '::1', '::', '::ffff:127.0.0.1', '::ffff:8.8.8.8', '::7f00:1', 'fe80::1', 'fe80::1%eth0', 'fec0::1', 'fd12:3456::1', 'ff02::1',
  // The IPv4 address a 6to4, NAT64 or SIIT address carries for a gateway, by its own rule.
  '2002:7f00:1::', '2002:a00:1::1', '2002:c000:201::1', '64:ff9b::7f00:1', '64:ff9b::a9fe:a9fe', '::ffff:0:7f00:1', '::ffff:0:c0a8:1'
]
/** Globally reachable: IANA marks these True, or they are in no special-purpose range. */
const REACHABLE = [
  '8.8.8.8', '1.1.1.1', '172.32.0.1', '192.169.0.1', '100.128.0.1', '192.0.0.9', '192.0.0.10', '192.31.196.1', '192.52.193.1',
  '192.175.48.1', '2606:4700:4700::1111', '2001:1::1', '2001:1::2', '2001:1::3', '2001:3::1', '2001:4:112::1', '2001:20::1',
  '2001:30::1', '2620:4f:8000::1', '2002:808:808::1', '64:ff9b::808:808', '::ffff:0:808:808'
]

test('special-purpose addresses: every IANA range not globally reachable is refused, with its range named', () => {
  for (const address of REFUSED) assert.notEqual(specialPurposeRange(address), undefined, address)
  for (const address of REACHABLE) assert.equal(specialPurposeRange(address), undefined, address)
  assert.equal(specialPurposeRange('192.0.2.1'), 'reserved or documentation')
  assert.equal(specialPurposeRange('2002:7f00:1::'), 'embeds 127.0.0.1: loopback')
  assert.equal(specialPurposeRange('64:ff9b:1::1'), 'local-use NAT64 (64:ff9b:1::/48)')
  assert.equal(specialPurposeRange('example.com'), 'not an IP address')
})

test('urlRefusal: each reason in words; names resolving to loopback are refused; WEBHOOK_ALLOW_PRIVATE permits them; only http(s)', async () => {
  assert.match((await urlRefusal('http://localhost:8080/x', false))!, /^localhost resolves to (127\.0\.0\.1|::1), a special-purpose address \(loopback\)$/)
  assert.equal(await urlRefusal('http://[::ffff:7f00:1]/', false), '::ffff:7f00:1 is a special-purpose address (IPv4-mapped (::ffff:0:0/96))')
  assert.equal(await urlRefusal('http://[2002:7f00:1::]/', false), '2002:7f00:1:: is a special-purpose address (embeds 127.0.0.1: loopback)')
  assert.equal(await urlRefusal('http://0x7f.1/', false), '127.0.0.1 is a special-purpose address (loopback)')
  assert.equal(await urlRefusal('http://localhost:8080/x', true), undefined)
  assert.equal(await urlRefusal('http://8.8.8.8/hooks', false), undefined)
  assert.equal(await urlRefusal('file:///etc/passwd', true), 'not an http or https URL')
  assert.equal(await urlRefusal('/hooks', false), 'not an absolute URL')
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
  // Special-purpose literals are refused before any connection is tried (port 9, discard).
  for (const url of ['http://192.0.2.1:9/', 'http://198.51.100.1:9/', 'http://[2001:db8::1]:9/', 'http://[2002:7f00:1::]:9/', 'http://[64:ff9b:1::1]:9/', 'http://[::ffff:0:7f00:1]:9/']) {
    const outcome = await sendAttempt(url, {}, '{}', options)
    assert.match(outcome.error!, /^refused: .* is a special-purpose address \(/, url)
  }
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
