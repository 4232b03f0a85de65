import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { FastifyInstance } from 'fastify'
import { adminLogin } from '../../support/accounts.js'
import { authHeaders } from '../../support/app.js'
import { rawRequest, requestBytes } from '../../support/raw-http.js'
import { describeEachEngine } from '../../support/suite.js'

/**
 * The statuses the HTTP layer sends (400 `Bad request`, 408, 417, 431, 413, 415) really
 * happen on each operation the API document lists them for, with the documented message: sent
 * on the wire to the app listening, on each engine.
 */

type Operation = { responses: Record<string, { content?: { 'application/json'?: { schema: { properties: { message: { enum: string[] } } } } } }> }
type Document = { paths: Record<string, Record<string, Operation>> }


/** The messages the document gives for `status` of `method path`. */
function documented(document: Document, path: string, method: string, status: number): string[] {
  return document.paths[path]?.[method]?.responses[String(status)]?.content?.['application/json']?.schema.properties.message.enum ?? []
}

async function listening(app: FastifyInstance): Promise<number> {
  await app.listen({ port: 0, host: '127.0.0.1' })
  return (app.server.address() as { port: number }).port
}

describeEachEngine(
  'the API document lists the statuses the HTTP layer really sends',
  ({ withFreshApp }) => {
    test('400 Bad request, 417, 431, 413 and 415 on every operation that documents them; 408', async () => {
      await withFreshApp(async (app) => {
        const document = (await app.inject({ url: '/openapi.json' })).json() as Document
        const port = await listening(app)
        // An admin's token: every operation (the /users ones too) gets past the role check.
        const token = await adminLogin(app)
        const bearer = `Authorization: Bearer ${token}`
        const created = await app.inject({ method: 'POST', url: '/book', headers: authHeaders(token), payload: { title: 'T', author: 'A', year: 1 } })
        const id = created.json().data.id as number
        const operations = Object.entries(document.paths).flatMap(([path, methods]) => Object.keys(methods).map((method) => [path, method] as const))
        assert.ok(operations.length >= 8)
        const seen: string[] = []
        for (const [path, method] of operations) {
          const target = path.replace('{id}', String(id)).replace('{username}', 'admin')
          const line = `${method.toUpperCase()} ${target} HTTP/1.1`
          const hasBody = ['post', 'put', 'delete'].includes(method)
          const stimuli: Array<[number, Buffer]> = [
            [400, requestBytes(line, ['Host: x', 'Host: y', bearer])],
            [431, requestBytes(line, ['Host: x', bearer, `X-Pad: ${'y'.repeat(20_000)}`])],
            [417, requestBytes(line, ['Host: x', bearer, 'Expect: foo'])]
          ]
          if (hasBody) {
            stimuli.push([415, requestBytes(line, ['Host: x', bearer, 'Content-Type: ;;'], '{}')])
            stimuli.push([413, requestBytes(line, ['Host: x', bearer, 'Content-Type: application/json'], `"${'x'.repeat(1024 * 1024)}"`)])
          }
          for (const [status, bytes] of stimuli) {
            const answer = await rawRequest(port, bytes)
            assert.equal(answer.status, status, `${line}: ${JSON.stringify(answer.body)}`)
            const message = (answer.body as { message: string }).message
            assert.ok(documented(document, path, method, status).includes(message), `${method} ${path} documents ${status} ${message}`)
            seen.push(`${method} ${path} ${status}`)
          }
        }
        const withBody = operations.filter(([, method]) => ['post', 'put', 'delete'].includes(method)).length
        assert.equal(seen.length, operations.length * 3 + withBody * 2)
        // 408 comes before routing: headers not finished within HEADERS_TIMEOUT (1 s here).
        const slow = await rawRequest(port, `GET /books HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\n`, 10_000)
        assert.equal(slow.status, 408)
        for (const [path, method] of operations) assert.ok(documented(document, path, method, 408).includes((slow.body as { message: string }).message))
      }, { HEADERS_TIMEOUT: 1, REQUEST_TIMEOUT: 1 })
    })
  }
)
