/**
 * The type a query or path parameter has for its users, beside the text it arrives as.
 *
 * Parameters arrive as text and are validated as text, by pattern, with Ajv's type coercion off
 * (docs/contract.md: `limit=1.5`, `year=+1` or `count=yes` answer 400 `Invalid input`, a bad `{id}`
 * 404). What they stand for is an integer in a range or a boolean, and that is what the API document
 * publishes so that generated clients take `limit: 20` and `id: book.id` (docs/api.md "Programs").
 * The validation schema stays the only check; the published type is attached to it here, where
 * the route schemas and the document builder (`src/http/api-document/`) both may reach it.
 */

/** The JSON Schema a parameter is published with: an integer range or a boolean. */
export type PublishedParameterType =
  | { type: 'integer'; minimum: number; maximum: number }
  | { type: 'boolean' }

const published = new WeakMap<object, PublishedParameterType>()

/**
 * Marks `schema` (a parameter's validation schema, as it sits in its route's `querystring` or
 * `params` object) to be published as `type`.
 *
 * @returns `schema` itself, unchanged: validation does not see the mark.
 */
export function publishedAs<T extends object>(schema: T, type: PublishedParameterType): T {
  published.set(schema, type)
  return schema
}

/** The type `schema` is published as, or undefined when it is published as it validates. */
export function publishedTypeOf(schema: object): PublishedParameterType | undefined {
  return published.get(schema)
}
