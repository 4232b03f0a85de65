import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { cacheVerified } from '../../src/auth/verified-tokens.js'

/** A verifier that counts its calls; a token `bad…` is refused, any other has the given `exp`. */
function countingVerifier(exp?: number) {
  const calls: string[] = []
  const verify = (token: string) => {
    calls.push(token)
    if (token.startsWith('bad')) throw new Error('invalid token')
    return exp === undefined ? { sub: token } : { sub: token, exp }
  }
  return { verify, calls }
}

describe('verified-token cache', () => {
  test('a repeat token is answered from the cache with the same claims', () => {
    const { verify, calls } = countingVerifier(2_000)
    const cached = cacheVerified(verify, { max: 10, leewayMs: 0, now: () => 1_000_000 })
    const first = cached('a')
    assert.equal(cached('a'), first)
    assert.deepEqual(calls, ['a'])
  })

  test('an entry lives until exp plus the leeway, then the token is verified again', () => {
    const { verify, calls } = countingVerifier(100) // exp 100 s = 100,000 ms
    let now = 99_000
    const cached = cacheVerified(verify, { max: 10, leewayMs: 30_000, now: () => now })
    cached('a')
    now = 129_999
    cached('a')
    assert.equal(calls.length, 1)
    now = 130_000
    cached('a')
    assert.equal(calls.length, 2)
  })

  test('refusals are never cached', () => {
    const { verify, calls } = countingVerifier()
    const cached = cacheVerified(verify, { max: 10, leewayMs: 0 })
    assert.throws(() => cached('bad'), /invalid token/)
    assert.throws(() => cached('bad'), /invalid token/)
    assert.equal(calls.length, 2)
  })

  test('at most max entries: the oldest is dropped first', () => {
    const { verify, calls } = countingVerifier()
    const cached = cacheVerified(verify, { max: 2, leewayMs: 0 })
    cached('a')
    cached('b')
    cached('c') // drops a
    cached('b')
    cached('c')
    assert.deepEqual(calls, ['a', 'b', 'c'])
    cached('a')
    assert.deepEqual(calls, ['a', 'b', 'c', 'a'])
  })
})
