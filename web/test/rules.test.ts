import assert from 'node:assert/strict'
import { readFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { describe, test } from 'node:test'
import { Ajv } from 'ajv'
import fc from 'fast-check'
import { BookInput } from '../../src/book/schema.js'
import { BODY_VALIDATION_OPTIONS } from '../../src/book/validation.js'
import { failureMessage } from '../src/book/messages.js'
import { checkBook, yearFromText } from '../src/book/rules.js'

/**
 * The page's field checks against the API's own validator: for any body, the page calls it valid
 * exactly when Ajv, with the options and schema of `POST /book`, does.
 */
/** The built page's scripts (`npm run build`). */
const ASSETS = join(import.meta.dirname, '..', '..', 'dist', 'web', 'assets')

const validate = new Ajv({ ...BODY_VALIDATION_OPTIONS }).compile(BookInput)

const text = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 12 }),
  // Near the 500 limit, with characters outside the BMP (two UTF-16 units, one code point).
  fc.string({ unit: fc.constantFrom('a', '😀', ' '), minLength: 495, maxLength: 505 }),
  fc.constantFrom('', ' ', '\t\n', 'a\u0000b', 'a\ud800b', '\ud83d\ude00', ' Dune ', '\u00a0', '\u2003x'),
  fc.constant(1),
  fc.constant(null)
)
const year = fc.oneof(fc.integer({ min: -12000, max: 12000 }), fc.double(), fc.constantFrom('1965', 2020.5, -0, 9999, -9999, 10000, null))

describe('book rules from the API schema', () => {
  test('valid exactly when the API would accept the body (fast-check against Ajv)', () => {
    fc.assert(
      fc.property(fc.record({ title: text, author: text, year }, { requiredKeys: [] }), (body) => {
        const pageSaysValid = Object.keys(checkBook(body)).length === 0
        assert.equal(pageSaysValid, validate(body), JSON.stringify(body))
      }),
      { numRuns: 3000 }
    )
  })

  test('the failing rule, for the message next to the field', () => {
    const book = { title: 'Dune', author: 'Frank Herbert', year: 1965 }
    assert.deepEqual(checkBook(book), {})
    assert.deepEqual(checkBook({ ...book, title: '' }), { title: { rule: 'required' } })
    assert.deepEqual(checkBook({ author: 'A', year: 1 }), { title: { rule: 'required' } })
    assert.deepEqual(checkBook({ ...book, title: '   ' }), { title: { rule: 'blank' } })
    assert.deepEqual(checkBook({ ...book, author: 'a\u0000' }), { author: { rule: 'blank' } })
    assert.deepEqual(checkBook({ ...book, title: 'x'.repeat(501) }), { title: { rule: 'maxLength', limit: 500 } })
    assert.deepEqual(checkBook({ ...book, title: '😀'.repeat(500) }), {}) // code points, not UTF-16 units
    assert.deepEqual(checkBook({ ...book, year: '19x5' }), { year: { rule: 'type', expected: 'integer' } })
    assert.deepEqual(checkBook({ ...book, title: 7, year: 10000 }), { title: { rule: 'type', expected: 'string' }, year: { rule: 'range', minimum: -9999, maximum: 9999 } })
    assert.deepEqual(checkBook({ ...book, id: 'ignored', notes: 1 }), {})
    assert.equal(failureMessage('year', { rule: 'range', minimum: -9999, maximum: 9999 }), 'Year must be from -9999 to 9999.')
    assert.equal(failureMessage('title', { rule: 'required' }), 'Title is required.')
  })

  test('a year typed as text reads as the API reads the JSON number', () => {
    assert.equal(yearFromText(' 1965 '), 1965)
    assert.equal(yearFromText('-44'), -44)
    assert.equal(yearFromText('1965.0'), 1965)
    assert.equal(yearFromText('2.02e3'), 2020)
    assert.equal(yearFromText('1965.5'), 1965.5)
    assert.equal(yearFromText(''), undefined)
    assert.equal(yearFromText('19x5'), '19x5')
    assert.equal(yearFromText('0x7d0'), '0x7d0')
  })

  test('the bundle validates with Ajv’s standalone code of the same schemas: no JSON Schema interpreter, no eval', async () => {
    const script = readdirSync(ASSETS).filter((name) => name.endsWith('.js'))
    assert.ok(script.length > 0, 'npm run build writes dist/web/assets')
    const code = script.map((name) => readFileSync(join(ASSETS, name), 'utf8')).join('\n')
    assert.doesNotMatch(code, /new Function|\beval\(/)
    assert.match(code, /must NOT have more than 500 characters|maxLength/)
    for (const gone of ['assertKnownKeywords', 'is not checked by the page']) assert.ok(!code.includes(gone), gone)
  })
})
