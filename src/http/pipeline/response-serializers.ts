import fastJsonStringify from 'fast-json-stringify'
import type { FastifyServerOptions } from 'fastify'

/** A response schema's serializer: the JSON text of a payload. */
type Serializer = (payload: unknown) => string

/**
 * Fastify's `schemaController` option: response serializers built as Fastify builds them
 * (fast-json-stringify with the instance's serializer options and shared schemas), but once per
 * schema object. Fastify would compile one per route, status and content type, and most of those
 * are the same few envelope schemas (the error envelopes every route shares), so a start would
 * compile each of them many times over. A serializer depends only on its schema and the options,
 * so sharing it between routes changes no response.
 *
 * Each one is compiled on its first response, not at start-up: most of the ~170 response schemas
 * (every status of every route) are rarely or never answered, and compiling them all was a large
 * part of a start's CPU time (docs/benchmarks.md "What a start loads"). A schema that fails to
 * compile then fails that response: Fastify answers 500 with the error in the log line.
 */
export const serializerPerSchema: NonNullable<FastifyServerOptions['schemaController']> = {
  compilersFactory: {
    buildSerializer(externalSchemas?: unknown, serializerOptions?: fastJsonStringify.Options) {
      const options = { ...serializerOptions, schema: externalSchemas as Record<string, fastJsonStringify.Schema> | undefined }
      const built = new WeakMap<object, Serializer>()
      return ({ schema }: { schema?: unknown }) => {
        let serializer = built.get(schema as object)
        if (serializer === undefined) {
          let compiled: Serializer | undefined
          const compile = (): Serializer => {
            // As Fastify's compiler does: a shared schema is not also passed as its own reference.
            const { $id } = schema as { $id?: string }
            const shared = $id !== undefined && options.schema?.[$id] !== undefined
              ? { ...options, schema: Object.fromEntries(Object.entries(options.schema).filter(([id]) => id !== $id)) }
              : options
            return fastJsonStringify(schema as fastJsonStringify.AnySchema, shared) as Serializer
          }
          serializer = (payload) => (compiled ??= compile())(payload)
          built.set(schema as object, serializer)
        }
        return serializer
      }
    }
  }
}
