import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { nextCursor } from '../../src/client/answer.js'
import { apiQuery, cleanQuery, hashOf, parseHash } from '../src/routing/view-state.js'

describe('the view in the URL', () => {
  test('a link reproduces the view: parse and write round-trip', () => {
    const hash = '#/books?title=dune+messiah&author=%C3%A9t%C3%A9&year_min=-44&year_max=2000&sort=-year&limit=100&after=WyJ5ZWFyIiwxOTY1LDFd'
    const route = parseHash(hash)
    assert.deepEqual(route, {
      view: 'books',
      books: { title: 'dune messiah', author: 'été', year_min: '-44', year_max: '2000', sort: '-year', limit: '100', after: 'WyJ5ZWFyIiwxOTY1LDFd' }
    })
    assert.deepEqual(parseHash(hashOf(route)), route)
    assert.equal(hashOf({ view: 'accounts', books: {} }), '#/accounts')
    assert.deepEqual(parseHash('#/transfer'), { view: 'transfer', books: {} })
    assert.deepEqual(parseHash('#/elsewhere'), { view: 'books', books: {} })
  })

  test('settings the API would refuse are dropped, defaults left out', () => {
    assert.deepEqual(cleanQuery({ sort: 'price', limit: '5000', year_min: '12345', year_max: '19x5', title: 'x'.repeat(501) }), {})
    assert.deepEqual(cleanQuery({ sort: 'id', limit: '25' }), {})
    assert.deepEqual(apiQuery({}), { limit: '25' })
  })

  test('the next page’s position comes from the Link header', () => {
    assert.equal(nextCursor('</books?sort=title&limit=1&after=WyJ0aXRsZSIsImJlbG92ZWQiLDJd>; rel="next"'), 'WyJ0aXRsZSIsImJlbG92ZWQiLDJd')
    assert.equal(nextCursor(null), undefined)
    assert.equal(nextCursor('</books?after=3>; rel="prev"'), undefined)
  })
})
