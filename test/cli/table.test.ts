import assert from 'node:assert/strict'
import { test } from 'node:test'
import { historyListing } from '../../src/cli/commands/history.js'
import { jsonLines, table } from '../../src/cli/table.js'
import type { HistoryEntry } from '../../src/client/index.js'

const entry = (version: number, title: string, author: string): HistoryEntry => ({
  version,
  operation: version === 1 ? 'created' : 'updated',
  at: '2026-11-27T12:00:00.000Z',
  actor: 'alice',
  book: { id: 1, title, author, year: 1968 }
})

test('the table aligns columns by display width: CJK titles (two columns a character) and combining accents (none)', () => {
  const entries = [entry(3, '雪国', '川端康成'), entry(2, 'Cafe\u0301', 'Zoe\u0308'), entry(1, 'Snow Country', 'Kawabata')]
  const lines = table(historyListing, entries).split('\n').slice(0, -1)
  assert.deepEqual(lines, [
    'VERSION  OPERATION  AT                        ACTOR  TITLE         AUTHOR    YEAR',
    '3        updated    2026-11-27T12:00:00.000Z  alice  雪国          川端康成  1968',
    '2        updated    2026-11-27T12:00:00.000Z  alice  Cafe\u0301          Zoe\u0308       1968',
    '1        created    2026-11-27T12:00:00.000Z  alice  Snow Country  Kawabata  1968'
  ])
})

test('--json is one JSON object per line, the listing\'s view of each row; no rows, no lines', () => {
  const entries = [entry(2, 'A', 'B'), entry(1, 'C', 'D')]
  assert.deepEqual(jsonLines(historyListing, entries).trimEnd().split('\n').map((line) => JSON.parse(line)), entries)
  assert.equal(jsonLines(historyListing, []), '')
  assert.equal(table(historyListing, []), 'VERSION  OPERATION  AT  ACTOR  TITLE  AUTHOR  YEAR\n')
})
