import assert from 'node:assert/strict'
import { test } from 'node:test'
import { ReplacementBackoff } from '../../../src/cli/workers/replacement-backoff.js'

test('a death alone is replaced at once; deaths within a minute wait 100 ms, doubling up to 30 s', () => {
  let now = 0
  const backoff = new ReplacementBackoff(() => now)
  const waits = Array.from({ length: 12 }, () => {
    now += 10
    return backoff.next()
  })
  assert.deepEqual(waits, [0, 100, 200, 400, 800, 1600, 3200, 6400, 12800, 25600, 30000, 30000])
})

test('deaths older than a minute no longer count', () => {
  let now = 0
  const backoff = new ReplacementBackoff(() => now)
  backoff.next()
  backoff.next()
  now += 60_000
  assert.equal(backoff.next(), 0)
})
