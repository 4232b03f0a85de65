import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { decodeCursor, encodeCursor } from '../../src/book/cursor.js'

const book = { id: 42, title: 'Été Borges', author: 'БОРХЕС', year: -44 }
const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url')

describe('list cursors', () => {
  test('round trip: the folded title or author, or the year, and the id', () => {
    assert.deepEqual(decodeCursor(encodeCursor('title', 'title', book), 'title', 'title'), { key: 'été borges', id: 42 })
    assert.deepEqual(decodeCursor(encodeCursor('-author', 'author', book), '-author', 'author'), { key: 'борхес', id: 42 })
    assert.deepEqual(decodeCursor(encodeCursor('year', 'year', book), 'year', 'year'), { key: -44, id: 42 })
  })

  test('opaque base64url of [sort, key, id]', () => {
    const cursor = encodeCursor('-title', 'title', book)
    assert.match(cursor, /^[A-Za-z0-9_-]+$/)
    assert.deepEqual(JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')), ['-title', 'été borges', 42])
  })

  test('a cursor of another sort or direction is refused', () => {
    const cursor = encodeCursor('title', 'title', book)
    assert.equal(decodeCursor(cursor, '-title', 'title'), undefined)
    assert.equal(decodeCursor(cursor, 'author', 'author'), undefined)
  })

  test('malformed cursors are refused', () => {
    for (const text of ['', 'not json', encode({}), encode(['title', 'x']), encode(['title', 'x', 1, 2])]) {
      assert.equal(decodeCursor(text, 'title', 'title'), undefined, text)
    }
    assert.equal(decodeCursor(encode(['title', 'x', -1]), 'title', 'title'), undefined)
    assert.equal(decodeCursor(encode(['title', 'x', 1.5]), 'title', 'title'), undefined)
    assert.equal(decodeCursor(encode(['title', 'x', 2 ** 53]), 'title', 'title'), undefined)
    assert.equal(decodeCursor(encode(['title', 5, 1]), 'title', 'title'), undefined, 'a number where text belongs')
    assert.equal(decodeCursor(encode(['year', '1965', 1]), 'year', 'year'), undefined, 'text where a year belongs')
  })
})
