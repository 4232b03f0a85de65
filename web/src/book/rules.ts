import type { ErrorObject } from 'ajv'
import { YEAR_RANGE } from '../../../src/book/schema.js'
import { validateBookInput } from './book-validators.js'

/**
 * A book's fields as the page checks them: Ajv's validator of the Book schema the API validates
 * with (`book-validators.ts`, compiled at build time; docs/contract.md "Book bodies"), its errors
 * turned into one failure a field, for the message next to the field (`messages.ts`).
 */

/** The fields of a book a person types. */
export type BookField = 'title' | 'author' | 'year'

/** The fields, in form order. */
export const BOOK_FIELDS: readonly BookField[] = ['title', 'author', 'year']

/**
 * Why a value breaks its field's rules: the keyword that failed, with the schema's bound where
 * the message needs it. `required`: absent or empty; `type`: not text / not an integer;
 * `blank`: only white space, or a character that cannot be stored (the text pattern).
 */
export type RuleFailure =
  | { rule: 'required' }
  | { rule: 'type'; expected: 'string' | 'integer' }
  | { rule: 'blank' }
  | { rule: 'maxLength'; limit: number }
  | { rule: 'range'; minimum: number; maximum: number }

/** The failure an Ajv error means for `value`, the field's value; undefined for a keyword no message names. */
function failureOf(error: ErrorObject, value: unknown): RuleFailure | undefined {
  switch (error.keyword) {
    case 'required':
      return { rule: 'required' }
    case 'type':
      return { rule: 'type', expected: error.params.type === 'integer' ? 'integer' : 'string' }
    case 'minLength':
      return value === '' ? { rule: 'required' } : { rule: 'blank' }
    case 'pattern':
      return value === '' ? { rule: 'required' } : { rule: 'blank' }
    case 'maxLength':
      return { rule: 'maxLength', limit: error.params.limit as number }
    case 'minimum':
    case 'maximum':
      return { rule: 'range', ...yearBounds() }
    default:
      return undefined
  }
}

/** The order a person reads the messages in: the type first, then emptiness, then the rest. */
const PRECEDENCE: RuleFailure['rule'][] = ['type', 'required', 'blank', 'maxLength', 'range']

/**
 * Checks a book body with `POST /book`'s rules: every field present and valid. Fields the schema
 * does not name are ignored, as the API ignores them.
 *
 * @returns the first failure by field ({@link PRECEDENCE}); an empty object when the body is valid.
 */
export function checkBook(value: Record<string, unknown>): Partial<Record<BookField, RuleFailure>> {
  const failures: Partial<Record<BookField, RuleFailure>> = {}
  if (validateBookInput(value)) return failures
  for (const error of validateBookInput.errors ?? []) {
    const field = (error.keyword === 'required' ? error.params.missingProperty : error.instancePath.slice(1)) as BookField
    if (!BOOK_FIELDS.includes(field)) continue
    const failure = failureOf(error, value[field])
    const known = failures[field]
    if (failure && (!known || PRECEDENCE.indexOf(failure.rule) < PRECEDENCE.indexOf(known.rule))) failures[field] = failure
  }
  return failures
}

/** The year's bounds from the schema (for the filters' checks and the form's hints). */
export function yearBounds(): { minimum: number; maximum: number } {
  return { minimum: YEAR_RANGE.minimum, maximum: YEAR_RANGE.maximum }
}

/**
 * A year as a person typed it, as the number the API would read: text in JSON's number syntax
 * (`1965`, `-44`, `1965.0`) becomes that number (checked as an integer afterwards, so `1965.5` is
 * refused there); empty text is absent; anything else stays text (and fails the integer check).
 */
export function yearFromText(text: string): number | string | undefined {
  const trimmed = text.trim()
  if (trimmed === '') return undefined
  return /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$/.test(trimmed) ? Number(trimmed) : trimmed
}
