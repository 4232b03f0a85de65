import assert from 'node:assert/strict'
import { test } from 'node:test'
import { Ajv } from 'ajv'
import Fastify from 'fastify'
import { compileOnFirstUse } from '../../../src/http/pipeline/request-validators.js'

test('a request schema is compiled on its first use: same verdicts and errors as Ajv\'s own, the request\'s value validated in place', async () => {
  const ajv = new Ajv({ useDefaults: true })
  let compiled = 0
  const compile = ajv.compile.bind(ajv)
  ajv.compile = ((...args: Parameters<typeof compile>) => {
    compiled++
    return compile(...args)
  }) as typeof ajv.compile
  compileOnFirstUse(ajv)
  const validate = ajv.compile({ type: 'object', properties: { n: { type: 'integer', default: 7 } } })
  assert.equal(compiled, 0)
  const value: { n?: unknown } = {}
  assert.equal(validate(value), true)
  assert.equal(compiled, 1)
  assert.deepEqual(value, { n: 7 })
  assert.equal(validate({ n: 'x' }), false)
  assert.equal((validate.errors as Array<{ instancePath: string }>)[0]!.instancePath, '/n')
  assert.equal(validate({ n: 1 }), true)
  assert.equal(validate.errors, null)
  assert.equal(compiled, 1)
})

test('a schema that cannot compile fails its route\'s requests with 500, not the start; the other routes answer', async () => {
  const app = Fastify({ ajv: { onCreate: compileOnFirstUse } })
  app.get('/bad', { schema: { querystring: { type: 'object', properties: { q: { type: 'no-such-type' } } } } }, async () => 'no')
  app.get('/good', { schema: { querystring: { type: 'object', properties: { q: { type: 'string' } } } } }, async () => 'yes')
  await app.ready()
  assert.equal((await app.inject({ url: '/good?q=a' })).body, 'yes')
  assert.equal((await app.inject({ url: '/bad?q=a' })).statusCode, 500)
  await app.close()
})
