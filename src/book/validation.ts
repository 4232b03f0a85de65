import { Ajv, type ErrorObject } from 'ajv'
import { MAX_BOOK_ID } from './id.js'
import { BookInput, YEAR_RANGE } from './schema.js'

/**
 * The Ajv options of every request-body validator (Fastify's `ajv.customOptions`): no type
 * coercion (`"2020"` stays a string and is invalid), nothing removed or defaulted, stop at the
 * first error. `book-service import` validates with the same options, so a row is valid exactly
 * when the same object would be a valid `POST /book` body.
 */
export const BODY_VALIDATION_OPTIONS = { coerceTypes: false, removeAdditional: false, useDefaults: false, allErrors: false } as const

/** A row that is valid as a `POST /book` body: its three fields, and the id the file gave (if any). */
export interface ValidRow extends BookInput {
  id?: number
}

let compiled: ((value: unknown) => boolean) & { errors?: ErrorObject[] | null } | undefined

/** U+0000 or an unpaired surrogate: what the text pattern refuses besides white space only. */
// eslint-disable-next-line no-control-regex -- U+0000 is exactly what it looks for
const UNSTORABLE = /[\u0000\ud800-\udfff]/u

/** Why `error` (Ajv's first error on `row`, a `BookInput`) makes the row invalid, in plain words. */
function reason(error: ErrorObject, row: unknown): string {
  const field = error.instancePath.slice(1) || String(error.params.missingProperty ?? 'row')
  if (error.keyword === 'required') return `${field} is missing`
  if (error.keyword === 'type' && error.instancePath === '') return 'is not an object'
  if (field === 'year') return `year must be an integer from ${YEAR_RANGE.minimum} to ${YEAR_RANGE.maximum}`
  switch (error.keyword) {
    case 'type':
      return `${field} must be text`
    case 'pattern':
      if (UNSTORABLE.test(String((row as Record<string, unknown>)[field]))) return `${field} contains U+0000 or an unpaired surrogate`
      return `${field} must not be empty or only white space`
    case 'minLength':
      return `${field} must not be empty or only white space`
    case 'maxLength':
      // The schema's own maxLength, as Ajv reports it.
      return `${field} is longer than ${String(error.params.limit)} characters`
    default:
      return `${field} ${error.message ?? 'is invalid'}`
  }
}

/**
 * Checks one imported row with the `POST /book` body schema ({@link BookInput}, docs/contract.md
 * "Book bodies"), and its `id` when `withId` (an integer from 1 to 2^53-1).
 *
 * @param value the row as an object (from a JSON line, or a CSV record with `year`/`id` made numbers).
 * @returns the row's fields, or a one-line reason why it is invalid (e.g. `year must be an integer…`).
 */
export function checkRow(value: unknown, withId: boolean): ValidRow | string {
  compiled ??= new Ajv({ ...BODY_VALIDATION_OPTIONS, addUsedSchema: false }).compile(BookInput)
  if (!compiled(value)) return reason(compiled.errors![0]!, value)
  const { title, author, year, id } = value as ValidRow & { id?: unknown }
  if (!withId) return { title, author, year }
  if (id === undefined) return 'id is missing (--keep-ids needs an id on every row)'
  if (!Number.isInteger(id) || (id as number) < 1 || (id as number) > MAX_BOOK_ID) return 'id must be an integer from 1 to 2^53-1'
  return { id: id as number, title, author, year }
}

/**
 * Whether a book as stored (`title`, `author`, `year`, e.g. the one a version of its history holds)
 * passes today's book rules: the `POST /book` body schema, through {@link checkRow}. A version
 * written by another program (a 601-character title, year 99999, a NUL in the author) or under
 * older rules does not, and is not restored (docs/contract.md "History and restore": 422 `Version
 * cannot be restored`): it would store a book that fails a `PUT` of its own fields.
 */
export function isRestorable(book: { title: unknown; author: unknown; year: unknown }): boolean {
  return typeof checkRow({ title: book.title, author: book.author, year: book.year }, false) !== 'string'
}
