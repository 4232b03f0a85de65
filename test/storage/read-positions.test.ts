import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { formatPosition, parsePosition } from '../../src/storage/contracts/read-replicas.js'
import { authHeaders, suiteApp } from '../support/app.js'

describe('Commit-Position values (docs/api.md "Read your writes")', () => {
  test('a position reads as PostgreSQL prints an LSN, in either case, and prints back the same', () => {
    assert.equal(parsePosition('16/B374D848'), (0x16n << 32n) | 0xb374d848n)
    assert.equal(parsePosition('0/0'), 0n)
    assert.equal(parsePosition('ffffffff/ffffffff'), 2n ** 64n - 1n)
    for (const text of ['16/B374D848', '0/16B3748', 'FFFFFFFF/0']) assert.equal(formatPosition(parsePosition(text)!), text)
    // Ordered as positions, not as text: 0/FFFFFFFF comes before 1/0.
    assert.ok(parsePosition('0/FFFFFFFF')! < parsePosition('1/0')!)
  })

  test('anything else is not a position', () => {
    for (const text of ['', '16', '16/', '/1', '1/2/3', '123456789/0', 'G/0', '1 /0x2', '-1/0']) assert.equal(parsePosition(text), undefined, text)
  })
})

describe('without read replicas (SQLite)', () => {
  const app = suiteApp()

  test('a write carries no Commit-Position, and a read that sends one is answered as any other', async () => {
    const created = await app().inject({ method: 'POST', url: '/book', headers: authHeaders(), payload: { title: 'T', author: 'A', year: 2000 } })
    assert.equal(created.statusCode, 201)
    assert.equal(created.headers['commit-position'], undefined)
    const id = (created.json() as { data: { id: number } }).data.id
    for (const position of ['0/16B3748', 'not a position']) {
      const read = await app().inject({ method: 'GET', url: `/book/${id}`, headers: { ...authHeaders(), 'commit-position': position } })
      assert.equal(read.statusCode, 200, position)
    }
  })
})
