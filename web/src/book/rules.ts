import { BookInput } from '../../../src/book/schema.js'

/**
 * The rules of a book's fields, read from the Book schema the API validates with
 * (`src/book/schema.ts`, `docs/contract.md` "Book bodies"). The page's build replaces that module
 * with the schemas as plain JSON (`web/build.ts`), so the browser gets the same numbers and
 * pattern without TypeBox; this module interprets the few JSON Schema keywords those schemas use,
 * and {@link assertKnownKeywords} (run by the build and the tests) fails on any other, so a rule
 * added to the schema cannot be silently skipped here.
 */

/** The JSON Schema subset of the book's field schemas. */
export interface FieldSchema {
  type?: 'string' | 'integer'
  minLength?: number
  maxLength?: number
  pattern?: string
  minimum?: number
  maximum?: number
}

/** An object schema: the book body. */
export interface ObjectSchema {
  type: 'object'
  required?: string[]
  properties: Record<string, FieldSchema>
}

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

/** Keywords that only describe (documentation), never constrain. */
const ANNOTATIONS = new Set(['description', 'examples', 'title', 'default'])
const FIELD_KEYWORDS = new Set(['type', 'minLength', 'maxLength', 'pattern', 'minimum', 'maximum'])
const OBJECT_KEYWORDS = new Set(['type', 'required', 'properties', 'additionalProperties'])

/**
 * Throws when `schema` (an object schema of books) uses a keyword this module does not check.
 *
 * @throws {Error} naming the keyword and where it is.
 */
export function assertKnownKeywords(schema: unknown, where = 'schema'): void {
  const object = schema as Record<string, unknown>
  for (const key of Object.keys(object)) {
    if (!OBJECT_KEYWORDS.has(key) && !ANNOTATIONS.has(key)) throw new Error(`${where}: keyword ${key} is not checked by the page`)
  }
  for (const [name, field] of Object.entries(object.properties as Record<string, Record<string, unknown>>)) {
    for (const key of Object.keys(field)) {
      if (!FIELD_KEYWORDS.has(key) && !ANNOTATIONS.has(key)) {
        throw new Error(`${where}.properties.${name}: keyword ${key} is not checked by the page`)
      }
    }
  }
}

/** The body schema of `POST /book` (every field required). */
export const bookInputSchema = BookInput as unknown as ObjectSchema

const patterns = new Map<string, RegExp>()

/** JSON Schema's `pattern`: an ECMAScript regular expression with the `u` flag, not anchored. */
function patternOf(source: string): RegExp {
  let compiled = patterns.get(source)
  if (!compiled) patterns.set(source, (compiled = new RegExp(source, 'u')))
  return compiled
}

/**
 * Checks `value` against one field's schema, in the order a person reads the messages: type,
 * then emptiness and the text pattern, then length; for integers the range.
 *
 * @returns undefined when the value is valid, else the first {@link RuleFailure}.
 */
export function checkField(schema: FieldSchema, value: unknown): RuleFailure | undefined {
  if (schema.type === 'string') {
    if (typeof value !== 'string') return { rule: 'type', expected: 'string' }
    // Lengths count code points, as JSON Schema (and the API) do.
    const length = [...value].length
    if (length === 0) return { rule: 'required' }
    if (schema.minLength !== undefined && length < schema.minLength) return { rule: 'blank' }
    if (schema.pattern !== undefined && !patternOf(schema.pattern).test(value)) return { rule: 'blank' }
    if (schema.maxLength !== undefined && length > schema.maxLength) return { rule: 'maxLength', limit: schema.maxLength }
    return undefined
  }
  if (schema.type === 'integer') {
    if (typeof value !== 'number' || !Number.isInteger(value)) return { rule: 'type', expected: 'integer' }
    const minimum = schema.minimum ?? -Infinity
    const maximum = schema.maximum ?? Infinity
    if (value < minimum || value > maximum) return { rule: 'range', minimum, maximum }
  }
  return undefined
}

/**
 * Checks a whole book body (`POST /book` when `schema` is {@link bookInputSchema}): every
 * required field present, each present field valid. Fields the schema does not name are ignored,
 * as the API ignores them.
 *
 * @returns the failures by field; an empty object when the body is valid.
 */
export function checkBook(value: Record<string, unknown>, schema: ObjectSchema = bookInputSchema): Partial<Record<BookField, RuleFailure>> {
  const failures: Partial<Record<BookField, RuleFailure>> = {}
  for (const field of BOOK_FIELDS) {
    const fieldSchema = schema.properties[field]
    if (!fieldSchema) continue
    if (value[field] === undefined) {
      if (schema.required?.includes(field)) failures[field] = { rule: 'required' }
      continue
    }
    const failure = checkField(fieldSchema, value[field])
    if (failure) failures[field] = failure
  }
  return failures
}

/** The year's bounds from the schema (for the filters' checks and the form's hints). */
export function yearBounds(): { minimum: number; maximum: number } {
  const year = bookInputSchema.properties.year!
  return { minimum: year.minimum ?? -Infinity, maximum: year.maximum ?? Infinity }
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
