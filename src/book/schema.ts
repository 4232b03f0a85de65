import Type, { type Static } from 'typebox'
import { MAX_BOOK_ID } from './id.js'
import { publishedAs } from './parameter-types.js'

/**
 * The Book resource (docs/contract.md "Wire", "Book bodies"), and the one place its rules live:
 * these schemas validate request bodies, serialize responses and describe the API.
 */

const MAX_TEXT = 500

/**
 * A title or author (docs/contract.md "Book bodies"): 1 to 500 code points, not only white space,
 * and well-formed Unicode without NUL: no U+0000 (PostgreSQL text cannot hold it) and no lone
 * surrogate such as `"\ud800"` (neither engine can store it as sent: SQLite would keep three
 * U+FFFD, PostgreSQL one). Both are invalid input, the same on both engines.
 *
 * One positive pattern says all of it, so that generators driven by the API document can produce
 * valid bodies (a `not` clause would leave them none): optional white space, then a character
 * that is neither white space nor U+0000 nor a surrogate, then anything but U+0000 and surrogates.
 * JSON Schema patterns are matched with the `u` flag (Ajv's default), where a surrogate pair is
 * one code point outside `\ud800-\udfff`, so only unpaired surrogates fail.
 */
export const TEXT_PATTERN = '^\\s*[^\\s\\u0000\\ud800-\\udfff][^\\u0000\\ud800-\\udfff]*$'

const Text = (description: string) =>
  Type.String({ minLength: 1, maxLength: MAX_TEXT, pattern: TEXT_PATTERN, description })

/** The years a book may have, inclusive (docs/contract.md "Book bodies"). */
export const YEAR_RANGE = { minimum: -9999, maximum: 9999 } as const

/** A year: an integer in {@link YEAR_RANGE}; strings and fractions are invalid. */
const Year = Type.Integer({ ...YEAR_RANGE, description: 'Year value of the book.' })

/** A stored book as it appears in every response: exactly id, title, author, year. */
export const Book = Type.Object(
  {
    id: Type.Integer({ minimum: 1, description: 'Assigned by the service on creation; never reused.' }),
    title: Type.String({ description: 'Title of the book.' }),
    author: Type.String({ description: 'Author of the book.' }),
    year: Type.Integer({ description: 'Year value of the book.' })
  },
  { additionalProperties: false, examples: [{ id: 1, title: 'Dune', author: 'Frank Herbert', year: 1965 }] }
)
export type Book = Static<typeof Book>

/** Body of POST /book: all three fields required; unknown fields (and `id`) are ignored. */
export const BookInput = Type.Object(
  { title: Text('Title of the book.'), author: Text('Author of the book.'), year: Year },
  { additionalProperties: true, examples: [{ title: 'Dune', author: 'Frank Herbert', year: 1965 }] }
)
export type BookInput = Pick<Static<typeof BookInput>, 'title' | 'author' | 'year'>

/** Body of PUT /book/{id}: each field optional; absent fields keep their stored value. */
export const BookPatch = Type.Object(
  {
    title: Type.Optional(Text('Title of the book.')),
    author: Type.Optional(Text('Author of the book.')),
    year: Type.Optional(Year)
  },
  { additionalProperties: true, examples: [{ year: 1966 }] }
)
export type BookPatch = Pick<Static<typeof BookPatch>, 'title' | 'author' | 'year'>

/** Path parameters of the /book/{id} routes. The id is matched by the route handler, not here. */
export const BookParams = Type.Object({
  id: publishedAs(Type.String({ description: 'Decimal digits, 1 to 2^53-1; anything else is answered 404.', examples: ['1'] }), {
    type: 'integer', minimum: 1, maximum: MAX_BOOK_ID
  })
})
