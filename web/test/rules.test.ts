import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { Ajv } from 'ajv'
import fc from 'fast-check'
import { BookInput, BookPatch } from '../../src/book/schema.js'
import { BODY_VALIDATION_OPTIONS } from '../../src/book/validation.js'
import { failureMessage } from '../src/book/messages.js'
import { assertKnownKeywords, checkBook, checkField, yearFromText, type FieldSchema } from '../src/book/rules.js'

/**
 * The page's field checks against the API's own validator: for any body, the page calls it valid
 * exactly when Ajv, with the options and schema of `POST /book`, does.
 */
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
    const { title, year: yearSchema } = (BookInput as unknown as { properties: Record<string, FieldSchema> }).properties
    assert.deepEqual(checkField(title!, ''), { rule: 'required' })
    assert.deepEqual(checkField(title!, '   '), { rule: 'blank' })
    assert.deepEqual(checkField(title!, 'a\u0000'), { rule: 'blank' })
    assert.deepEqual(checkField(title!, 'x'.repeat(501)), { rule: 'maxLength', limit: 500 })
    assert.equal(checkField(title!, '😀'.repeat(500)), undefined) // code points, not UTF-16 units
    assert.deepEqual(checkField(yearSchema!, '19x5'), { rule: 'type', expected: 'integer' })
    assert.deepEqual(checkField(yearSchema!, 10000), { rule: 'range', minimum: -9999, maximum: 9999 })
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

  test('every keyword of the book schemas is one the page checks; any other fails the build', () => {
    assertKnownKeywords(BookInput, 'BookInput')
    assertKnownKeywords(BookPatch, 'BookPatch')
    const withFormat = structuredClone(BookInput) as unknown as { properties: { title: Record<string, unknown> } }
    withFormat.properties.title.format = 'email'
    assert.throws(() => assertKnownKeywords(withFormat, 'BookInput'), /BookInput\.properties\.title: keyword format is not checked by the page/)
    assert.throws(() => assertKnownKeywords({ ...structuredClone(BookInput), minProperties: 1 }), /keyword minProperties/)
  })
})
