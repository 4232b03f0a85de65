import type { BookInput } from '../api/books.js'
import { failureMessage } from '../book/messages.js'
import { BOOK_FIELDS, checkBook } from '../book/rules.js'
import { strings } from '../strings/index.js'
import type { FileProblem, FileRow } from './book-file.js'

/** A row ready to send: its line in the file and the `POST /book` body. */
export interface ImportRow {
  line: number
  book: BookInput
}

/** An invalid row: its line and why, in the page's words. */
export interface InvalidRow {
  line: number
  reason: string
}

/** The rows of a file sorted into those ready to send and those that are not. */
export interface ImportCheck {
  rows: ImportRow[]
  invalid: InvalidRow[]
}

/**
 * Why a row cannot be read, in the page's strings: the words `book-service import` uses
 * (`describeProblem` in src/book/file-format.ts; web/test/book-file.test.ts holds them equal).
 */
export function problemMessage(problem: FileProblem): string {
  const words = strings.transfer.problems
  switch (problem.kind) {
    case 'columns':
      return words.columnCount(problem.fields, problem.header)
    case 'notJson':
      return words.notJson
    case 'notObject':
      return words.notObject
    case 'csv':
      return problem.fault === 'other' ? words.notCsv(problem.detail ?? '') : words[problem.fault]
  }
}

/**
 * Checks every row of a file with the rules of `POST /book` (`web/src/book/rules.ts`, from the
 * API's Book schema) before anything is sent. A row's other fields (an `id` included) are left
 * out of the body, as the service ignores them.
 */
export function checkRows(fileRows: FileRow[]): ImportCheck {
  const check: ImportCheck = { rows: [], invalid: [] }
  for (const row of fileRows) {
    if ('problem' in row) {
      check.invalid.push({ line: row.line, reason: problemMessage(row.problem) })
      continue
    }
    const failures = checkBook(row.value)
    const field = BOOK_FIELDS.find((name) => failures[name] !== undefined)
    if (field) {
      check.invalid.push({ line: row.line, reason: failureMessage(field, failures[field]!) })
      continue
    }
    const { title, author, year } = row.value as unknown as BookInput
    check.rows.push({ line: row.line, book: { title, author, year } })
  }
  return check
}
