import assert from 'node:assert/strict'
import { test } from 'node:test'
import Database from 'better-sqlite3'
import { BASE_LETTERS, DIACRITIC_LETTERS, parseSearch, rankOf, searchForm, withinOneEdit } from '../../src/book/search.js'

test('every letter whose diacritics search ignores is folded the same by the bundled SQLite FTS5 trigram tokenizer', () => {
  // The index must find every book the rule matches: its folding may merge more, never less.
  const db = new Database(':memory:')
  db.exec("CREATE VIRTUAL TABLE probe USING fts5(text, tokenize='trigram remove_diacritics 1')")
  const insert = db.prepare('INSERT INTO probe (rowid, text) VALUES (?, ?)')
  const find = db.prepare<[string], { rowid: number }>('SELECT rowid FROM probe WHERE probe MATCH ?')
  const letters = [...DIACRITIC_LETTERS]
  assert.equal(letters.length, [...BASE_LETTERS].length)
  letters.forEach((letter, index) => insert.run(index + 1, `xq${letter}qz`))
  letters.forEach((letter, index) => {
    const found = find.all(`"xq${[...BASE_LETTERS][index]}qz"`).map((row) => row.rowid)
    assert.ok(found.includes(index + 1), `${letter} is not found as ${[...BASE_LETTERS][index]}`)
    // The letter is its canonical decomposition's base letter with marks.
    assert.equal(letter.normalize('NFD').replace(/\p{M}/gu, ''), [...BASE_LETTERS][index])
  })
  db.close()
})

test('search form: case and diacritics folded; other scripts kept', () => {
  assert.equal(searchForm('GARCÍA Márquez'), 'garcia marquez')
  assert.equal(searchForm('Ångström Ærø'), 'angstrom ærø')
  assert.equal(searchForm('Мастер'), 'мастер')
  assert.equal(searchForm('e\u0301te\u0301'), 'ete')
})

test('terms: white space splits, a double-quoted part is one term, an unclosed quote runs to the end', () => {
  assert.deepEqual(parseSearch('  Le   Guin '), { text: 'le   guin', terms: [{ text: 'le', quoted: false }, { text: 'guin', quoted: false }] })
  assert.deepEqual(parseSearch('"le guin" dark"ness'), {
    text: '"le guin" dark"ness',
    terms: [
      { text: 'le guin', quoted: true },
      { text: 'dark', quoted: false },
      { text: 'ness', quoted: true }
    ]
  })
  assert.equal(parseSearch(' \t '), undefined)
  assert.equal(parseSearch('""'), undefined)
  assert.throws(() => parseSearch('x'.repeat(201)), RangeError)
  assert.ok(parseSearch(` ${'é'.repeat(200)} `))
})

test('one edit: insertion, deletion, substitution, transposition; not two', () => {
  const near = (a: string, b: string) => withinOneEdit([...a], [...b])
  assert.ok(near('darkness', 'drakness'))
  assert.ok(near('darkness', 'darknes'))
  assert.ok(near('darkness', 'darkkness'))
  assert.ok(near('darkness', 'darkmess'))
  assert.ok(near('darkness', 'darkness'))
  assert.ok(!near('darkness', 'drakmess'))
  assert.ok(!near('darkness', 'dakrnses'))
  assert.ok(!near('darkness', 'darkne'))
  assert.ok(!near('abcde', 'bacdf'))
  const search = parseSearch('drakness')!
  assert.equal(rankOf(search, 'Heart of Darkness', 'Conrad'), 5)
  assert.equal(rankOf(parseSearch('"drakness"')!, 'Heart of Darkness', 'Conrad'), undefined)
  assert.equal(rankOf(parseSearch('drak')!, 'Dark', 'x'), undefined)
})
