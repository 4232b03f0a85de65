import assert from 'node:assert/strict'
import { test } from 'node:test'
import { engineOf } from '../../../src/storage/contracts/engine.js'

test('engineOf: postgres:// and postgresql:// (any case) name PostgreSQL; anything else is a SQLite path', () => {
  for (const url of ['postgres://u@h/db', 'postgresql://h/db', 'POSTGRES://h/db']) assert.equal(engineOf(url), 'postgres', url)
  for (const url of ['./data/books.db', ':memory:', '/var/lib/postgres/books.db', 'postgres.db', 'mysql://h/db']) {
    assert.equal(engineOf(url), 'sqlite', url)
  }
})
