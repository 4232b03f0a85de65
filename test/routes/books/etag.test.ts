import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { bookETag, ifMatchHolds, ifNoneMatchMatches } from '../../../src/routes/books/etag.js'

const book = { id: 7, title: 'Dune', author: 'Frank Herbert', year: 1965, version: 1 }

describe('bookETag', () => {
  test('a strong tag of 22 base64url characters, the same for the same book', () => {
    const tag = bookETag(book)
    assert.match(tag, /^"[A-Za-z0-9_-]{22}"$/)
    assert.equal(bookETag({ ...book }), tag)
  })

  test('changes with the version and with every field', () => {
    const tag = bookETag(book)
    for (const changed of [{ version: 2 }, { id: 8 }, { title: 'Dune!' }, { author: 'F. Herbert' }, { year: 1966 }]) {
      assert.notEqual(bookETag({ ...book, ...changed }), tag, JSON.stringify(changed))
    }
  })
})

describe('If-Match (strong comparison)', () => {
  const tag = bookETag(book)
  test('holds for *, the tag, or a list naming it', () => {
    assert.equal(ifMatchHolds('*', tag), true)
    assert.equal(ifMatchHolds(' * ', tag), true)
    assert.equal(ifMatchHolds(tag, tag), true)
    assert.equal(ifMatchHolds(`"other", ${tag}`, tag), true)
  })

  test('never for a weak tag, another tag, or a value without a quoted tag', () => {
    assert.equal(ifMatchHolds(`W/${tag}`, tag), false)
    assert.equal(ifMatchHolds('"other"', tag), false)
    assert.equal(ifMatchHolds(tag.slice(1, -1), tag), false)
    assert.equal(ifMatchHolds('', tag), false)
  })
})

describe('If-None-Match (weak comparison)', () => {
  const tag = bookETag(book)
  test('matches *, the tag, its weak form, or a list naming it', () => {
    assert.equal(ifNoneMatchMatches('*', tag), true)
    assert.equal(ifNoneMatchMatches(tag, tag), true)
    assert.equal(ifNoneMatchMatches(`W/${tag}`, tag), true)
    assert.equal(ifNoneMatchMatches(`"a", W/"b", ${tag}`, tag), true)
  })

  test('does not match other tags', () => {
    assert.equal(ifNoneMatchMatches('"other"', tag), false)
    assert.equal(ifNoneMatchMatches('W/"other"', tag), false)
  })
})
