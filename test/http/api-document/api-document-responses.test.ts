import assert from 'node:assert/strict'
import { truncateSync } from 'node:fs'
import { join } from 'node:path'
import { describe, test } from 'node:test'
import { TEST_PASSWORD, signToken } from '../../support/app.js'
import { createPostgresDatabase, engines, type TestDatabase } from '../../support/engines.js'
import { responseChecker, type Answer } from '../../support/openapi-responses.js'
import { postgresTarget, startProxy, through, type TcpProxy } from '../../support/proxy.js'
import { rawRequest, requestBytes } from '../../support/raw-http.js'
import { removeDirectory, startServer, temporaryDirectory, type RunningServer } from '../../support/server.js'
import { processSkipReason } from '../../support/scope.js'

/**
 * The API document against the real process, as a validating proxy would hold it (docs/command-line.md "API
 * document, CLI and operations"): every operation driven through its outcomes, the HTTP layer's
 * refusals and, with the storage gone, its failures; every answer must have a status the
 * operation documents and a body its schema for that status accepts. On each engine.
 */

const admin = signToken({ sub: 'tester' })
const reader = signToken({ role: 'reader' })
/** The bootstrap admin's token: its `sub` names an account, so it may own API tokens. */
const owner = signToken({ sub: 'admin' })
const book = JSON.stringify({ title: 'Documented', author: 'Checker', year: 2024 })
const account = (username: string) => JSON.stringify({ username, password: 'a long enough passphrase', role: 'reader' })

/** One request on the wire: method, target, extra headers, body. */
type Call = [method: string, target: string, headers: string[], body?: string]

/** The calls for every operation while the storage answers; `{id}` is an existing book, `{tag}` a stale ETag. */
function callsWhileUp(id: number): Call[] {
  const bearer = (token: string) => [`Authorization: Bearer ${token}`]
  const json = ['Content-Type: application/json']
  const calls: Call[] = []
  const operations: Array<[string, string, string | undefined]> = [
    ['POST', '/book', book],
    ['GET', '/books', undefined],
    ['GET', `/book/${id}`, undefined],
    ['PUT', `/book/${id}`, '{"year":2025}'],
    ['GET', '/users', undefined],
    ['POST', '/users', account('documented')],
    ['PUT', '/users/documented', '{"role":"editor"}'],
    ['PUT', '/users/documented/password', '{"current_password":"a long enough passphrase","new_password":"another long passphrase"}'],
    ['POST', '/login', JSON.stringify({ username: 'admin', password: TEST_PASSWORD })],
    ['POST', '/tokens', '{"name":"documented"}'],
    ['GET', '/tokens', undefined],
    ['DELETE', '/tokens/unknown', undefined],
    ['GET', '/healthz', undefined],
    ['GET', '/readyz', undefined]
  ]
  for (const [method, target, body] of operations) {
    const protectedRoute = target !== '/login' && !target.endsWith('z')
    calls.push([method, target, [...bearer(admin), ...(body ? json : [])], body])
    if (protectedRoute) {
      calls.push([method, target, [], body], [method, target, bearer('not.a.token'), body], [method, target, bearer(reader), body])
    }
    calls.push([method, target, [...bearer(admin), 'Expect: foo'], body])
    calls.push([method, target, [...bearer(admin), `X-Pad: ${'y'.repeat(20_000)}`], body])
    calls.push([method, target, [...bearer(admin), 'Host: again'], body])
    if (body !== undefined) {
      calls.push([method, target, [...bearer(admin), ...json], '{"title":'])
      calls.push([method, target, [...bearer(admin), ...json], `"${'x'.repeat(1024 * 1024)}"`])
      calls.push([method, target, [...bearer(admin), 'Content-Type: ;;'], body])
      calls.push([method, target, [...bearer(admin), ...json], `{"deep":${'['.repeat(40)}${']'.repeat(40)}}`])
    }
  }
  calls.push(
    ['GET', '/books?limit=0', bearer(admin)],
    ['GET', '/books?author=check&sort=-title&count=true', bearer(admin)],
    ['GET', '/books?limit=1', bearer(admin)],
    ['GET', '/book/999999', bearer(admin)],
    ['GET', `/book/${id}`, [...bearer(admin), 'If-None-Match: *']],
    ['PUT', `/book/${id}`, [...bearer(admin), ...json, 'If-Match: "stale"'], '{}'],
    ['PUT', '/book/999999', [...bearer(admin), ...json], '{}'],
    ['DELETE', `/book/${id}`, [...bearer(admin), 'If-Match: "stale"']],
    ['DELETE', '/book/999999', bearer(admin)],
    ['DELETE', `/book/${id}`, bearer(reader)],
    ['DELETE', `/book/${id}`, bearer(admin)],
    ['POST', '/users', [...bearer(admin), ...json], account('DOCUMENTED')],
    ['PUT', '/users/nobody', [...bearer(admin), ...json], '{}'],
    ['PUT', '/users/admin', [...bearer(admin), ...json], '{"role":"reader"}'],
    ['DELETE', '/users/admin', bearer(admin)],
    ['DELETE', '/users/documented', bearer(admin)],
    ['DELETE', '/users/documented', bearer(admin)],
    ['POST', '/login', json, JSON.stringify({ username: 'admin', password: 'wrong' })],
    ['POST', '/login', json, '[]'],
    ['POST', '/tokens', [...bearer(owner), ...json], '{"name":"documented","expires_in_days":30}'],
    ['POST', '/tokens', [...bearer(signToken({ sub: 'admin', role: 'reader' })), ...json], '{"name":"documented","role":"editor"}'],
    ['POST', '/tokens', [...bearer(owner), ...json], '{"name":""}'],
    ['GET', '/tokens', bearer(owner)],
    ['GET', '/tokens?all=true', bearer(owner)],
    ['GET', '/tokens?all=true', bearer(signToken({ sub: 'admin', role: 'editor' }))],
    ['GET', '/tokens?all=maybe', bearer(owner)]
  )
  return calls
}

/** The calls for every operation once the storage is gone: each with what would otherwise succeed. */
function callsWhileDown(loginToken: string): Call[] {
  const json = ['Content-Type: application/json']
  const bearer = [`Authorization: Bearer ${admin}`]
  return [
    ['POST', '/book', [...bearer, ...json], book],
    ['GET', '/books', bearer],
    ['GET', '/books?author=x', bearer],
    ['GET', '/books?limit=2', bearer],
    ['GET', '/book/1', bearer],
    ['PUT', '/book/1', [...bearer, ...json], '{"year":1}'],
    ['DELETE', '/book/1', bearer],
    ['GET', '/users', bearer],
    ['GET', '/users', [`Authorization: Bearer ${loginToken}`]],
    ['POST', '/users', [...bearer, ...json], account('late')],
    ['PUT', '/users/admin', [...bearer, ...json], '{"password":"another long passphrase"}'],
    ['DELETE', '/users/admin', bearer],
    ['POST', '/tokens', [`Authorization: Bearer ${owner}`, ...json], '{"name":"late"}'],
    ['GET', '/tokens', [`Authorization: Bearer ${owner}`]],
    ['DELETE', '/tokens/0b0f6a4e-3c1d-4f55-9a8e-2d7c1b9e4f10', bearer],
    ['POST', '/login', json, JSON.stringify({ username: 'admin', password: TEST_PASSWORD })],
    ['GET', '/readyz', []],
    ['GET', '/healthz', []]
  ]
}

/** Sends each call on its own connection and checks its answer against the document; returns the statuses seen. */
async function drive(server: RunningServer, calls: Call[], check: (answer: Answer) => string | undefined): Promise<Map<string, Set<number>>> {
  const seen = new Map<string, Set<number>>()
  for (const [method, target, headers, body] of calls) {
    const hosts = headers.some((header) => header.startsWith('Host:')) ? [] : ['Host: x']
    const answer = await rawRequest(server.port, requestBytes(`${method} ${target} HTTP/1.1`, [...hosts, ...headers.map((header) => header.replace('Host: again', 'Host: x\r\nHost: y'))], body), 15_000)
    const text = answer.body === undefined ? '' : JSON.stringify(answer.body)
    const problem = check({ method, url: target, status: answer.status, contentType: answer.headers['content-type'], body: text })
    assert.equal(problem, undefined, `${method} ${target} [${headers.map((header) => header.slice(0, 40)).join(', ')}]`)
    const key = `${method} ${target.split('?')[0]!.replace(/\/book\/\d+/, '/book/{id}').replace(/\/users\/[^/]+/, '/users/{username}')}`
    seen.set(key, (seen.get(key) ?? new Set()).add(answer.status))
  }
  return seen
}

for (const { engine, skip } of engines) {
  describe(`every answer as the API document says (real process) [${engine}]`, () => {
    test('the outcomes of every operation, the HTTP layer\'s refusals, and every operation with the storage gone', { skip: processSkipReason ?? skip }, async () => {
      const directory = temporaryDirectory()
      let database: TestDatabase | undefined
      let proxy: TcpProxy | undefined
      let server: RunningServer | undefined
      try {
        const env: Record<string, string> = { LOGIN_RATE_LIMIT: '12' }
        if (engine === 'postgres') {
          database = await createPostgresDatabase()
          proxy = await startProxy(postgresTarget())
          env.DATABASE_URL = through(database.url, proxy.port)
        }
        server = await startServer({ dataDirectory: directory, env })
        const document = await (await fetch(`${server.url}/openapi.json`)).json()
        const check = await responseChecker(document as object)
        const created = await (await fetch(`${server.url}/book`, { method: 'POST', headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' }, body: book })).json() as { data: { id: number } }
        const up = await drive(server, callsWhileUp(created.data.id), check)
        assert.ok(up.get('GET /book/{id}')?.has(304))
        for (const [operation, statuses] of [['POST /tokens', [201, 400, 403]], ['GET /tokens', [200, 400, 403]], ['DELETE /tokens/unknown', [404]]] as const) {
          for (const status of statuses) assert.ok(up.get(operation)?.has(status), `${operation} answered ${status}: ${[...(up.get(operation) ?? [])]}`)
        }
        const signedIn = signToken({ sub: 'admin', role: 'admin', book_service_generation: 'any' })

        // The storage goes away: SQLite's file is emptied under a fresh process, PostgreSQL is cut.
        if (engine === 'sqlite') {
          assert.equal(await server.stop(), 0)
          server = await startServer({ dataDirectory: directory, env })
          truncateSync(join(directory, 'books.db'), 0)
        } else {
          await proxy!.cut()
        }
        const down = await drive(server, callsWhileDown(signedIn), check)
        // Both engines: 503 (a damaged SQLite file makes the store unavailable: docs/operations.md "Readiness").
        const failure = 503
        for (const operation of ['POST /book', 'GET /books', 'GET /book/{id}', 'PUT /book/{id}', 'DELETE /book/{id}', 'POST /users', 'POST /login', 'POST /tokens', 'GET /tokens']) {
          assert.ok(down.get(operation)?.has(failure), `${operation} answered ${failure} with the storage gone: ${[...(down.get(operation) ?? [])]}`)
        }
        // Past LOGIN_RATE_LIMIT (12 a minute here): 429.
        const attempts: Call[] = Array.from({ length: 14 }, () => ['POST', '/login', ['Content-Type: application/json'], '{"username":"admin","password":"wrong"}'])
        assert.ok((await drive(server, attempts, check)).get('POST /login')?.has(429), 'the rate limit was reached')
      } finally {
        await server?.stop('SIGKILL')
        await proxy?.close()
        await database?.drop()
        removeDirectory(directory)
      }
    })
  })
}
