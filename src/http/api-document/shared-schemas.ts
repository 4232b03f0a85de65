import { publishedTypeOf } from '../../book/parameter-types.js'

/**
 * What the API document publishes beyond the route schemas as they validate, so that generators
 * (openapi-typescript, orval, hey-api) make a small, typed SDK from it (docs/api.md "Programs"):
 * - the shared schemas (`Book`, `BookInput`, `Envelope`, `User`, …) are defined once under
 *   `components.schemas` and every place the document has one of them refers to it by `$ref`;
 * - every error answer is the `Envelope`, narrowed to the exact `message` texts of its status;
 * - a parameter validated as text but meaning an integer or a boolean is published as such
 *   (`src/book/parameter-types.ts`);
 * - a pattern using Unicode property escapes (`\p{…}`), which many validators (Python's `re`,
 *   Spectral) cannot read, is left out: the description says the rule, the service checks it.
 * Only the document changes; the route schemas validate and serialize exactly as they are.
 */

type Node = Record<string, unknown>

const isObject = (value: unknown): value is Node => typeof value === 'object' && value !== null && !Array.isArray(value)

/**
 * A schema's text with its keys sorted and its examples left out, as `@fastify/swagger` writes it
 * (`const: x` as `enum: [x]`, a body's `examples` moved to its media type): two schemas with the
 * same text say the same thing.
 */
function canonical(value: unknown): string {
  return JSON.stringify(value, (key, inner: unknown) => {
    if (!isObject(inner)) return inner
    const keys = Object.keys(inner).filter((name) => name !== 'examples' && name !== 'example').sort()
    return Object.fromEntries(keys.map((name) => (name === 'const' ? ['enum', [inner.const]] : [name, inner[name]])))
  })
}

/**
 * `node` with a union of single string values (`anyOf: [{const: 'a'}, {const: 'b'}]`, how TypeBox
 * writes a union of literals) written as one `enum`, which generators turn into one named union.
 */
function asEnum(node: Node): Node {
  const members = node.anyOf
  if (!Array.isArray(members) || members.length === 0) return node
  const values = members.map((member) => {
    if (!isObject(member) || member.type !== 'string') return undefined
    if ('const' in member && Object.keys(member).length === 2) return member.const
    if (Array.isArray(member.enum) && member.enum.length === 1 && Object.keys(member).length === 2) return member.enum[0]
    return undefined
  })
  if (values.some((value) => value === undefined)) return node
  const rest = { ...node }
  delete rest.anyOf
  return { type: 'string', enum: values, ...rest }
}

/** The `$ref` of a component schema. */
export const componentRef = (name: string) => `#/components/schemas/${name}`

/** A JSON Schema pattern with a Unicode property escape (`\p{…}`, `\P{…}`). */
const PROPERTY_ESCAPE = /\\[pP]\{/

/**
 * `schema` (the route's own, from `@fastify/swagger`'s `transform`) with its query, path and
 * header parameters published as the types they stand for (`publishedAs`); examples follow the
 * type. Everything else is left as it is.
 */
export function publishParameters<T extends object>(schema: T): T {
  const copy: Node = { ...(schema as Node) }
  for (const part of ['querystring', 'params', 'headers']) {
    const object = copy[part]
    if (!isObject(object) || !isObject(object.properties)) continue
    const properties = Object.fromEntries(
      Object.entries(object.properties).map(([name, property]) => {
        const type = isObject(property) ? publishedTypeOf(property) : undefined
        if (type === undefined) return [name, property]
        const { description, examples } = property as { description?: string; examples?: unknown[] }
        const value = (text: unknown) => (type.type === 'boolean' ? text === 'true' : Number(text))
        return [name, { ...type, ...(description ? { description } : {}), ...(examples ? { examples: examples.map(value) } : {}) }]
      })
    )
    copy[part] = { ...object, properties }
  }
  return copy as T
}

/** An error answer's schema as the route schemas build it: `{status, message, data: null}`. */
function isErrorEnvelope(schema: Node): boolean {
  const properties = schema.properties
  return isObject(properties) && Object.keys(properties).join() === 'status,message,data' && canonical(properties.data) === '{"type":"null"}'
}

/** `schema` with each union of single strings as one `enum`, at every depth. */
function normalized(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(normalized)
  if (!isObject(schema)) return schema
  const node = asEnum(schema)
  return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, key === 'examples' || key === 'example' ? value : normalized(value)]))
}

/**
 * The `@fastify/swagger` `transformObject`: adds `components` to `document` and refers to them.
 *
 * @param document the generated OpenAPI object (changed in place and returned).
 * @param components the shared schemas by name, as the route schemas hold them; each is published
 *   once, and any schema of the document with the same content becomes a `$ref` to it. `Envelope`
 *   names the error envelope: each error answer becomes it, narrowed by its `message` texts.
 */
export function shareSchemas(document: Node, components: Record<string, object>): Node {
  const byContent = new Map(Object.entries(components).map(([name, schema]) => [canonical(normalized(schema)), name]))
  const share = (node: unknown, own?: string): unknown => {
    if (Array.isArray(node)) return node.map((item) => share(item))
    if (!isObject(node)) return node
    const schema = asEnum(node)
    const name = byContent.get(canonical(normalized(schema)))
    if (name !== undefined && name !== own) return { $ref: componentRef(name) }
    if (components.Envelope && own !== 'Envelope' && isErrorEnvelope(schema)) {
      const { status, message } = schema.properties as { status: Node; message: Node }
      return { $ref: componentRef('Envelope'), properties: { status: { examples: status.examples }, message: { enum: message.enum } } }
    }
    const copy: Node = {}
    for (const [key, value] of Object.entries(schema)) {
      // Examples are values, not schemas; a pattern the mainstream validators cannot read is left out.
      if (key === 'examples' || key === 'example') copy[key] = value
      else if (key === 'pattern' && typeof value === 'string' && PROPERTY_ESCAPE.test(value)) continue
      else if (key === 'not' && isObject(value) && typeof value.pattern === 'string' && PROPERTY_ESCAPE.test(value.pattern)) continue
      else copy[key] = share(value)
    }
    return copy
  }
  const schemas = Object.fromEntries(Object.entries(components).map(([name, schema]) => [name, share(normalized(structuredClone(schema)), name)]))
  const existing = (document.components ?? {}) as Node
  document.components = { ...existing, schemas: { ...((existing.schemas as Node | undefined) ?? {}), ...schemas } }
  document.paths = share(document.paths)
  return document
}
