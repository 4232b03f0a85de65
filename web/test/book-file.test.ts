import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, describe, test } from 'node:test'
import { stringify } from 'csv-stringify/sync'
import fc from 'fast-check'
import { csvCell, describeProblem, formatBooks, type FileProblem } from '../../src/book/file-format.js'
import * as cli from '../../src/cli/book-file.js'
import { checkRow } from '../../src/book/validation.js'
import { BookFileError, formatOf, readRows, type FileRow } from '../src/transfer/book-file.js'
import { checkRows, problemMessage } from '../src/transfer/import-check.js'

/**
 * The page reads and writes import/export files exactly as `book-service import` and `export`
 * do (src/cli/book-file.ts, src/book/file-format.ts): the same rows from the same files, RFC 4180
 * bytes for the same books, and the same verdict on each row.
 */
const folder = mkdtempSync(join(tmpdir(), 'book-service-web-file-'))
after(() => rmSync(folder, { recursive: true, force: true }))

/** What `book-service import` checks in `text`: every row, a record that is not valid CSV among them. */
async function cliRows(text: string, format: 'csv' | 'ndjson'): Promise<FileRow[] | 'error'> {
  const path = join(folder, `file.${format}`)
  writeFileSync(path, text)
  const rows: FileRow[] = []
  try {
    for await (const row of cli.readEveryRow(path, format)) rows.push(row)
  } catch (error) {
    if (error instanceof cli.BookFileError) return 'error'
    throw error
  }
  return rows
}

/** What the page reads from `text`. */
function pageRows(text: string, format: 'csv' | 'ndjson'): FileRow[] | 'error' {
  try {
    return readRows(text, format)
  } catch (error) {
    if (error instanceof BookFileError) return 'error'
    throw error
  }
}

/**
 * The file of docs/web-page.md "Web page" (Import): five bad rows, each of another kind (line 2
 * year, line 3 a quote, line 4 an empty author, line 5 the field count, line 6 year).
 */
const FIVE_BAD_ROWS = 'title,author,year\nDune,Frank Herbert,19x5\n"Emma"X,Jane Austen,1815\nPersuasion,,1817\nKindred,Octavia E. Butler,1979,extra\nBeloved,Toni Morrison,20000\nGood,Row,2000\n'

/** Stray quotes of every kind, a quoted line break, a quote never closed (test/cli/errors.test.ts's file). */
const QUOTES_CSV =
  'id,title,author,year\r\n1,Fine,Author,1999\r\n2,Say "hi",Author,2000\r\n3,"Quoted" after,Author,2001\r\n4,,Author,2002\r\n' +
  '5,"Two\r\nlines, fine",Author,2003\r\n6,"Never closed,Author,2004\r\n7,Fine again,Author,2005\r\n8,Bad year,Author,20.5\r\n'

const csvFiles = [
  FIVE_BAD_ROWS,
  'title,author,year\nDune,Frank Herbert,1965\n',
  '\ufeffID, Title ,AUTHOR,year,notes\r\n7,"Dune, Messiah","Frank ""the"" Herbert",1969,x\r\n\r\n8,"two\nlines",Someone, -44 \r\n',
  'title,author,year\nOnly,two\nA,B,1965.0\nA,B,+12\nA,B,\n',
  'title,author,year\n"unclosed,quote,1\n',
  'title,author,year\nA,"open\nB,C,1\nD,E,2\n',
  'id,ti"tle,author,year\r\n1,A,B,1\r\n',
  QUOTES_CSV,
  '',
  '\n\n',
  'year,title,author\r1999,Mac,Line ends\r'
]
const ndjsonFiles = [
  '{"title":"Dune","author":"Frank Herbert","year":1965}\n',
  '\ufeff{"id":3,"title":"A","author":"B","year":2.02e3}\r\n\r\n[1]\nnull\nnot json\n{"title":"x"}',
  '{"title":"a","author":"b","year":1}\r{"title":"c","author":"d","year":2}\n'
]

describe('import and export files, as the command line reads and writes them', () => {
  test('the same rows from the same CSV and NDJSON files', async () => {
    for (const text of csvFiles) assert.deepEqual(pageRows(text, 'csv'), await cliRows(text, 'csv'), JSON.stringify(text))
    for (const text of ndjsonFiles) assert.deepEqual(pageRows(text, 'ndjson'), await cliRows(text, 'ndjson'), JSON.stringify(text))
  })

  test('the same verdict on each row as book-service import', () => {
    const field = fc.oneof(fc.string({ unit: 'binary', maxLength: 6 }), fc.constantFrom(' ', '', 'a\u0000'), fc.integer({ min: -10000, max: 10000 }), fc.double(), fc.constant(null))
    fc.assert(
      fc.property(fc.array(fc.record({ title: field, author: field, year: field, id: field }, { requiredKeys: [] }), { maxLength: 6 }), (values) => {
        const check = checkRows(values.map((value, index) => ({ line: index + 1, value })))
        const cliValid = values.flatMap((value, index) => (typeof checkRow(value, false) === 'string' ? [] : [index + 1]))
        assert.deepEqual(
          check.rows.map((row) => row.line),
          cliValid
        )
        assert.equal(check.rows.length + check.invalid.length, values.length)
      }),
      { numRuns: 1000 }
    )
  })

  test('invalid rows are named by line with the reason in the page’s words', () => {
    const check = checkRows(readRows('title,author,year\nDune,Frank Herbert,1965\n"  ",X,1\nA,B,19x5\nOnly,two\n', 'csv'))
    assert.deepEqual(check.rows, [{ line: 2, book: { title: 'Dune', author: 'Frank Herbert', year: 1965 } }])
    assert.deepEqual(check.invalid, [
      { line: 3, reason: 'Title must contain more than spaces, and no character that cannot be stored.' },
      { line: 4, reason: 'Year must be a whole number.' },
      { line: 5, reason: 'has 2 fields, the header has 3' }
    ])
  })

  test('every bad row of a malformed CSV is listed, as book-service import lists it', () => {
    const check = checkRows(readRows(FIVE_BAD_ROWS, 'csv'))
    assert.deepEqual(check.invalid, [
      { line: 2, reason: 'Year must be a whole number.' },
      { line: 3, reason: 'has more after a closing quote (a quote inside a quoted field is written twice: "")' },
      { line: 4, reason: 'Author is required.' },
      { line: 5, reason: 'has 4 fields, the header has 3' },
      { line: 6, reason: 'Year must be from -9999 to 9999.' }
    ])
    assert.deepEqual(check.rows, [{ line: 7, book: { title: 'Good', author: 'Row', year: 2000 } }])
    assert.deepEqual(
      checkRows(readRows(QUOTES_CSV, 'csv')).invalid.map((row) => row.line),
      [3, 4, 5, 8, 10]
    )
  })

  test('a row that cannot be read is described in the command line’s words', () => {
    const problems: FileProblem[] = [
      { kind: 'columns', fields: 4, header: 3 },
      { kind: 'notJson' },
      { kind: 'notObject' },
      { kind: 'csv', fault: 'strayQuote' },
      { kind: 'csv', fault: 'afterClosingQuote' },
      { kind: 'csv', fault: 'quoteNotClosed' },
      { kind: 'csv', fault: 'other', detail: 'Invalid Record Length' }
    ]
    for (const problem of problems) assert.equal(problemMessage(problem), describeProblem(problem))
  })

  /**
   * A reference export of `books`: NDJSON by `JSON.stringify`, CSV by csv-stringify (RFC 4180, CRLF,
   * each escaped title and author quoted), against which the one writer of both is checked.
   */
  function referenceExport(books: Array<{ id: number; title: string; author: string; year: number }>, format: 'csv' | 'ndjson'): string {
    if (format === 'ndjson') return books.map(({ id, title, author, year }) => `${JSON.stringify({ id, title, author, year })}\n`).join('')
    const rows = books.map((book) => [book.id, csvCell(book.title), csvCell(book.author), book.year])
    return stringify([['id', 'title', 'author', 'year'], ...rows], { record_delimiter: 'windows', quoted_match: [/[\r\n]/, /^'/] })
  }

  test('an export is byte for byte what book-service export writes', () => {
    const book = fc.record({
      id: fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }),
      title: fc.string({ unit: 'binary', minLength: 1 }),
      author: fc.string({ unit: fc.constantFrom('a', ',', '"', '\r', '\n', ' ', 'é', '😀'), minLength: 1 }),
      year: fc.integer({ min: -9999, max: 9999 })
    })
    fc.assert(
      fc.property(fc.array(book, { maxLength: 8 }), (books) => {
        assert.equal(formatBooks(books, 'ndjson'), referenceExport(books, 'ndjson'))
        assert.equal(formatBooks(books, 'csv'), referenceExport(books, 'csv'))
      }),
      { numRuns: 500 }
    )
  })

  test('CSV formula injection: the page escapes titles and authors as the command line does, and reads its export back exactly (fast-check)', () => {
    assert.equal(
      formatBooks([{ id: 1, title: '=1+1', author: "'@x", year: 1 }], 'csv'),
      `id,title,author,year\r\n1,"'=1+1","''@x",1\r\n`
    )
    const text = fc.string({ unit: fc.constantFrom('=', '+', '-', '@', '\t', '\r', "'", '"', ',', 'a', ' '), minLength: 1, maxLength: 8 })
    fc.assert(
      fc.property(fc.array(fc.record({ title: text, author: text }), { minLength: 1, maxLength: 6 }), (texts) => {
        const books = texts.map((fields, index) => ({ id: index + 1, ...fields, year: 1965 }))
        const rows = readRows(formatBooks(books, 'csv'), 'csv')
        assert.deepEqual(rows.map((row) => ('value' in row ? row.value : row)), books)
      }),
      { numRuns: 300 }
    )
  })

  test('the format from the name, else from the content', () => {
    assert.equal(formatOf('books.CSV', '{'), 'csv')
    assert.equal(formatOf('books.jsonl', 'title'), 'ndjson')
    assert.equal(formatOf('books', '\ufeff  {"title"'), 'ndjson')
    assert.equal(formatOf('books.txt', 'title,author,year'), 'csv')
  })
})
