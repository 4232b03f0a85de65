import assert from 'node:assert/strict'
import { test } from 'node:test'
import { mergeBooks } from '../src/book/merge.js'

/** The page's three-way merge of a book edited by two people (docs/web-page.md "Web page", Conflicts). */
const base = { title: 'Dune', author: 'Frank Herbert', year: 1965 }

test('a field only one side changed takes that side, with no conflict', () => {
  const outcome = mergeBooks(base, { ...base, title: 'Dune (B)' }, { ...base, year: 1966 })
  assert.deepEqual(outcome, { merged: { title: 'Dune (B)', author: 'Frank Herbert', year: 1966 }, conflicts: [], theirs: ['year'] })
})

test('both changed a field differently: a conflict (mine kept until chosen); the same change is no conflict', () => {
  const outcome = mergeBooks(base, { ...base, title: 'Mine', author: 'F. Herbert' }, { ...base, title: 'Theirs', author: 'F. Herbert', year: 1966 })
  assert.deepEqual(outcome, { merged: { title: 'Mine', author: 'F. Herbert', year: 1966 }, conflicts: ['title'], theirs: ['year'] })
})

test('values compare as text: a year typed as text equals the stored number', () => {
  const outcome = mergeBooks(base, { ...base, year: '1965' as unknown as number }, { ...base, year: 1970 })
  assert.deepEqual(outcome.conflicts, [])
  assert.equal(outcome.merged.year, 1970)
})
