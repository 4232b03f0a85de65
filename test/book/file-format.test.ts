import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, describe, test } from 'node:test'
import fc from 'fast-check'
import { csvCell, csvText, formatBooks } from '../../src/book/file-format.js'
import { readRows } from '../../src/cli/book-file.js'

/**
 * CSV exports are safe to open in a spreadsheet (OWASP "CSV Injection", docs/data.md "Backups and moving
 * data") and `import` reads back exactly what was exported: the formula escaping of
 * `src/book/file-format.ts`, through its writer and the command line's reader.
 */
const folder = mkdtempSync(join(tmpdir(), 'book-service-csv-'))
after(() => rmSync(folder, { recursive: true, force: true }))

/** The books `book-service import` reads from the CSV `book-service export` writes of `books`. */
async function roundTrip(books: Array<{ id: number; title: string; author: string; year: number }>) {
  const path = join(folder, 'books.csv')
  writeFileSync(path, formatBooks(books, 'csv', true))
  const read = []
  for await (const row of readRows(path, 'csv')) read.push('value' in row ? row.value : row)
  return read
}

/** The characters a spreadsheet starts a formula with, the escape mark, and ordinary text. */
const tricky = fc.string({ unit: fc.constantFrom('=', '+', '-', '@', '\t', '\r', '\n', "'", '"', ',', 'a', ' ', 'é', '😀'), minLength: 1, maxLength: 8 })

describe('CSV formula injection', () => {
  test('a title or author starting with =, +, -, @, TAB, CR or \' is written with a leading \' and quoted; others as before', () => {
    const exported = formatBooks(
      [
        { id: 1, title: '=HYPERLINK("http://x","y")', author: '+1', year: -44 },
        { id: 2, title: '-2', author: '@SUM(A1)', year: 1 },
        { id: 3, title: '\tx', author: '\rx', year: 2 },
        { id: 4, title: "'=x", author: "'", year: 3 },
        { id: 5, title: "it's", author: 'a=b', year: 4 }
      ],
      'csv',
      true
    )
    assert.equal(
      exported,
      'id,title,author,year\r\n' +
        `1,"'=HYPERLINK(""http://x"",""y"")","'+1",-44\r\n` +
        `2,"'-2","'@SUM(A1)",1\r\n` +
        `3,"'\tx","'\rx",2\r\n` +
        `4,"''=x","''",3\r\n` +
        "5,it's,a=b,4\r\n"
    )
  })

  test('import undoes exactly that escaping: a hand-written \'hello stays, \'\'x and \'=x lose one quote', () => {
    assert.deepEqual(["'hello", "''x", "'=x", "'", "''", 'x'].map(csvText), ["'hello", "'x", '=x', "'", "'", 'x'])
  })

  test('any title and author: export then import gives the same book (fast-check)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.record({ title: fc.oneof(tricky, fc.string({ unit: 'binary', minLength: 1 })), author: tricky }), { minLength: 1, maxLength: 6 }), async (texts) => {
        const books = texts.map((text, index) => ({ id: index + 1, ...text, year: 1965 }))
        assert.deepEqual(await roundTrip(books), books)
      }),
      { numRuns: 300 }
    )
  })

  test('no exported title or author cell starts with a formula character (fast-check)', () => {
    fc.assert(
      fc.property(tricky, (text) => {
        assert.doesNotMatch(csvCell(text), /^[=+\-@\t\r]/)
        assert.equal(csvText(csvCell(text)), text)
      }),
      { numRuns: 1000 }
    )
  })
})
