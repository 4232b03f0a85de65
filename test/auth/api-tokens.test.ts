import assert from 'node:assert/strict'
import { test } from 'node:test'
import { API_TOKEN_CACHE_MS, ApiTokenChecks, LAST_USE_INTERVAL_MS } from '../../src/auth/api-tokens.js'
import type { ApiTokenStanding } from '../../src/storage/contracts/api-token-store.js'

const ID = '0b0f6a4e-3c1d-4f55-9a8e-2d7c1b9e4f10'
const claims = { sub: 'Ann', role: 'editor', jti: ID, book_service_api_token: true }

/**
 * A fake token store whose one standing the test sets, counting the reads and the statements
 * recording a use, and keeping the uses written as the database would (conditionally).
 */
function fakeStore() {
  const store = {
    standing: { usernameKey: 'ann', role: 'editor', accountRole: 'editor', lastUsedAt: null } as ApiTokenStanding | undefined,
    reads: 0,
    recordings: 0,
    writes: [] as number[],
    async standingOf() {
      store.reads++
      return store.standing === undefined ? undefined : { ...store.standing }
    },
    async recordUse(_id: string, now: number, since: number) {
      store.recordings++
      const recorded = store.standing?.lastUsedAt ?? null
      if (store.standing && (recorded === null || recorded < since)) {
        store.standing.lastUsedAt = now
        store.writes.push(now)
      }
    }
  }
  return store
}

function checksOn(store: ReturnType<typeof fakeStore>, clock: { now: number }) {
  return new ApiTokenChecks({ standing: () => store.standingOf(), recordUse: store.recordUse }, undefined, () => clock.now)
}

test('a standing is read at most every API_TOKEN_CACHE_MS; forget and forgetAccount drop it at once', async () => {
  const store = fakeStore()
  const clock = { now: 0 }
  const checks = checksOn(store, clock)
  assert.equal(await checks.isCurrent(claims), true)
  store.standing!.accountRole = 'reader'
  clock.now += API_TOKEN_CACHE_MS - 1
  assert.equal(checks.isCurrent(claims), true, 'the cached standing, no read')
  assert.equal(store.reads, 1)
  clock.now += 1
  assert.equal(await checks.isCurrent(claims), false, 'the role is above the account\'s now')
  store.standing!.accountRole = 'admin'
  checks.forgetAccount('ANN')
  assert.equal(await checks.isCurrent(claims), true)
  store.standing = undefined
  checks.forget(ID)
  assert.equal(await checks.isCurrent(claims), false, 'revoked')
})

test('the claims must match the row: its account, its role, an id of the service\'s form', async () => {
  const store = fakeStore()
  const checks = checksOn(store, { now: 0 })
  assert.equal(await checks.isCurrent({ ...claims, sub: 'bob' }), false)
  assert.equal(await checks.isCurrent({ ...claims, role: 'reader' }), false)
  assert.equal(checks.isCurrent({ ...claims, jti: 'other' }), false)
  assert.equal(checks.isCurrent({ ...claims, role: 'root' }), false)
  assert.equal(checks.isCurrent({ ...claims, sub: undefined }), false)
  assert.equal(store.reads, 1, 'a malformed token costs no read')
})

test('a use is written at the first request, then at most once per LAST_USE_INTERVAL_MS, once for concurrent requests', async () => {
  const store = fakeStore()
  const clock = { now: 1_000_000 }
  const checks = checksOn(store, clock)
  assert.deepEqual(await Promise.all([checks.isCurrent(claims), checks.isCurrent(claims), checks.isCurrent(claims)]), [true, true, true])
  assert.deepEqual(store.writes, [1_000_000])
  // Requests all through the minute, the standing read again every API_TOKEN_CACHE_MS: no write.
  for (let elapsed = API_TOKEN_CACHE_MS; elapsed < LAST_USE_INTERVAL_MS; elapsed += API_TOKEN_CACHE_MS) {
    clock.now = 1_000_000 + elapsed
    assert.equal(await checks.isCurrent(claims), true)
  }
  assert.ok(store.reads > 100)
  assert.deepEqual(store.writes, [1_000_000])
  assert.equal(store.recordings, 1, 'no statement is sent while the standing shows a use within the minute')
  clock.now = 1_000_000 + LAST_USE_INTERVAL_MS + API_TOKEN_CACHE_MS
  assert.equal(await checks.isCurrent(claims), true)
  assert.deepEqual(store.writes, [1_000_000, clock.now])
  assert.equal(store.recordings, 2)
  // A refused token's use is not recorded.
  store.standing!.accountRole = 'reader'
  clock.now += 2 * LAST_USE_INTERVAL_MS
  assert.equal(await checks.isCurrent(claims), false)
  assert.equal(store.writes.length, 2)
})
