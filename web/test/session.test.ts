import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { Ajv } from 'ajv'
import fc from 'fast-check'
import { AccountInput } from '../../src/account/schema.js'
import { signToken } from '../../test/support/app.js'
import { validPassword, validUsername } from '../src/accounts/rules.js'
import { readClaims } from '../src/session/claims.js'
import { ROLE_NAMES, sessionOf } from '../src/session/session.js'

describe('the session a token opens', () => {
  test('rights as the service grants them: by role; none for an unknown role; all without one', () => {
    const rights = (payload: Record<string, unknown>) => sessionOf(signToken(payload)).rights
    assert.deepEqual(rights({ sub: 'r', role: 'reader' }), { read: true, write: false, admin: false })
    assert.deepEqual(rights({ sub: 'e', role: 'editor' }), { read: true, write: true, admin: false })
    assert.deepEqual(rights({ sub: 'a', role: 'admin' }), { read: true, write: true, admin: true })
    assert.deepEqual(rights({}), { read: true, write: true, admin: true })
    assert.deepEqual(rights({ role: 'Admin' }), { read: false, write: false, admin: false })
    assert.equal(sessionOf(signToken({ role: 42 })).unknownRole, true)
    assert.deepEqual(ROLE_NAMES, ['reader', 'editor', 'admin'])
  })

  test('who and until when', () => {
    const session = sessionOf(signToken({ sub: 'Zoë', role: 'editor', exp: 2_000_000_000 }))
    assert.equal(session.username, 'Zoë')
    assert.equal(session.expiresAt, 2_000_000_000_000)
    assert.equal(readClaims('not a token'), undefined)
    assert.equal(readClaims('a.bm90IGpzb24.c'), undefined)
  })
})

describe('account rules from the API schema', () => {
  test('usernames and passwords valid exactly when POST /users accepts them (fast-check against Ajv)', () => {
    const validate = new Ajv().compile(AccountInput)
    const text = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 70 }),
      fc.constantFrom('', ' alice', 'alice ', 'al/ice', 'a\u0007b', 'x'.repeat(64), 'x'.repeat(65), 'a\ud800', 'p'.repeat(11), 'p'.repeat(1024), 'p'.repeat(1025)),
      fc.constantFrom('ad\u200bmin', '\u202enimda', 'admin\ufeff', 'ad\u3164min', 'ad\u{e0061}min', 'Zoë', 'dj 😀')
    )
    fc.assert(
      fc.property(text, text, (username, password) => {
        assert.equal(validUsername(username) && validPassword(password), validate({ username, password, role: 'reader' }))
      }),
      { numRuns: 2000 }
    )
  })

  test('look-alike usernames (zero-width space, right-to-left override) are refused by the page as by the API', () => {
    assert.equal(validUsername('admin'), true)
    assert.equal(validUsername('ad\u200bmin'), false)
    assert.equal(validUsername('\u202enimda'), false)
  })
})
