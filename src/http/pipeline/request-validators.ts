import type { Ajv } from 'ajv'

/** A validator as Ajv compiles it: called with the value (and Ajv's data context), its errors on itself. */
type Validator = ((...args: unknown[]) => unknown) & { errors?: unknown; schemaEnv?: unknown }

/**
 * The `onCreate` hook of Fastify's Ajv (the `ajv` server option): each route's request schemas
 * (params, querystring, headers, body) are compiled the first time a request of that route is
 * validated, not at start-up. Compiling every route's schemas at start was the largest part of
 * the start's CPU time after loading the code, and most routes see no request for a long while
 * (docs/benchmarks.md "What a start loads").
 *
 * The validator Fastify gets behaves as Ajv's own: it is called with the same arguments (Fastify
 * passes the request as Ajv's parent data, so a validation may change the request's value), its
 * `errors` are those of the last call, and it carries `schemaEnv` as Ajv's does, which is what
 * makes Fastify pass that parent data. A schema with an `$id` is compiled at once: Ajv keeps it
 * under that id, and Fastify looks a schema up by its id before compiling it again.
 *
 * A schema that fails to compile then fails its route's requests: Fastify answers them 500
 * (the error handler's envelope, the compile error in the log line) instead of failing the start.
 * In the tests such a schema shows as that 500 at the first request that reaches it; no test
 * compiles every route's schemas at once.
 */
export function compileOnFirstUse(ajv: Ajv): void {
  const compile = ajv.compile.bind(ajv)
  ajv.compile = ((schema: object & { $id?: string }, meta?: boolean) => {
    if (typeof schema !== 'object' || schema === null || schema.$id !== undefined) return compile(schema, meta)
    let compiled: Validator | undefined
    const validator: Validator = function validate(this: unknown, ...args: unknown[]) {
      compiled ??= compile(schema, meta) as unknown as Validator
      const valid = compiled.apply(this, args)
      validator.errors = compiled.errors
      return valid
    }
    validator.errors = null
    validator.schemaEnv = true
    return validator
  }) as unknown as Ajv['compile']
}
