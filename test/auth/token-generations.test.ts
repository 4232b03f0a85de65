import assert from 'node:assert/strict'
import { test } from 'node:test'
import { GENERATION_CACHE_MS, TokenGenerations } from '../../src/auth/token-generations.js'

/** A fake account store whose generations the test sets, counting the lookups. */
function fakeAccounts() {
  const stored = new Map<string, string>()
  let lookups = 0
  const gates: Array<() => void> = []
  return {
    stored,
    lookups: () => lookups,
    /** While set, lookups wait until `release()`. */
    hold: false,
    release: () => gates.splice(0).forEach((open) => open()),
    async generation(username: string) {
      lookups++
      // Read first, answer later: like a query whose reply is still on its way.
      const generation = stored.get(username.toLowerCase())
      if (this.hold) await new Promise<void>((resolve) => gates.push(resolve))
      return generation === undefined ? undefined : { role: 'editor' as const, generation }
    }
  }
}

test('answers from the cache until GENERATION_CACHE_MS has passed, then asks the store again', async () => {
  const accounts = fakeAccounts()
  let clock = 0
  const generations = new TokenGenerations(accounts, () => clock)
  accounts.stored.set('ann', 'g1')
  assert.equal(await generations.isCurrent('Ann', 'g1'), true)
  accounts.stored.set('ann', 'g2')
  clock += GENERATION_CACHE_MS - 1
  assert.equal(generations.isCurrent('ANN', 'g1'), true, 'cached answer, no lookup')
  assert.equal(accounts.lookups(), 1)
  clock += 1
  assert.equal(await generations.isCurrent('ann', 'g1'), false)
  assert.equal(await generations.isCurrent('ann', 'g2'), true)
  accounts.stored.delete('ann')
  generations.forget('ann')
  assert.equal(await generations.isCurrent('ann', 'g2'), false, 'a deleted account has no current generation')
})

test('concurrent checks share one lookup; a lookup started before forget() is not cached', async () => {
  const accounts = fakeAccounts()
  const generations = new TokenGenerations(accounts, () => 0)
  accounts.stored.set('bo', 'old')
  accounts.hold = true
  const waiting = [generations.isCurrent('bo', 'old'), generations.isCurrent('bo', 'old')]
  assert.equal(accounts.lookups(), 1)
  // The account changes on this instance while that lookup is in flight.
  accounts.stored.set('bo', 'new')
  generations.forget('bo')
  accounts.release()
  await Promise.all(waiting)
  accounts.hold = false
  assert.equal(await generations.isCurrent('bo', 'old'), false)
  assert.equal(await generations.isCurrent('bo', 'new'), true)
})
