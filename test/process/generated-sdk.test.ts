import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { copyFileSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import openapiTS, { astToString } from 'openapi-typescript'
import { TEST_PASSWORD } from '../support/app.js'
import { removeDirectory, startServer, temporaryDirectory, type RunningServer } from '../support/server.js'

/**
 * The API document generates a typed SDK that works (docs/api.md "Programs"): from the
 * `/openapi.json` of a started service, openapi-typescript writes the types; a program written
 * against them with openapi-fetch (`generated-sdk/program.ts`: books with paging and `If-Match`,
 * history, restore, search, users, API tokens, webhooks, the change feed as a stream, health) is
 * compiled with `tsc --strict`, once, and run against the same service, and so is docs/api.md's
 * ten-line example ("Programs", its `ts` block as written, only `localhost:8080` made the test
 * server's address). A document that types a parameter, a header or an answer wrongly fails the
 * compile; one that does not match the service fails the run.
 */

const run = promisify(execFile)
const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const PROGRAM = fileURLToPath(new URL('./generated-sdk/program.ts', import.meta.url))
const TSC = join(ROOT, 'node_modules/typescript/bin/tsc')

/** The TypeScript example of docs/api.md "Programs". */
function docsExample(): string {
  const section = readFileSync(join(ROOT, 'docs/api.md'), 'utf8').split('\n## Programs\n')[1] ?? ''
  const block = /```ts\n([\s\S]*?)```/.exec(section)?.[1]
  assert.ok(block !== undefined && block.includes("from 'openapi-fetch'"), 'docs/api.md "Programs" has the openapi-fetch example')
  return block
}

/** A new API token of the admin with `role`, as the docs make one for a program. */
async function apiToken(url: string, role: string): Promise<string> {
  const post = async (path: string, body: object, token?: string) =>
    (await fetch(`${url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify(body)
    }).then((response) => response.json())) as { data: { token: string } }
  const login = await post('/login', { username: 'admin', password: TEST_PASSWORD })
  return (await post('/tokens', { name: 'docs example', role }, login.data.token)).data.token
}

let data: string
let build: string
let server: RunningServer

before(async () => {
  data = temporaryDirectory('book-service-sdk-')
  build = temporaryDirectory('book-service-sdk-build-')
  // Deliveries to the program's receiver address (loopback) are allowed; none has to succeed.
  server = await startServer({ dataDirectory: data, env: { WEBHOOK_ALLOW_PRIVATE: 'true', LOG_LEVEL: 'info' } })
})
after(async () => {
  await server?.stop()
  removeDirectory(data)
  removeDirectory(build)
})

test('an SDK generated from the served document compiles with tsc --strict and works through every route family', { timeout: 180_000 }, async () => {
  const served = await fetch(`${server.url}/openapi.json`)
  assert.equal(served.status, 200)
  const types = astToString(await openapiTS((await served.json()) as never))
  writeFileSync(join(build, 'schema.d.ts'), types)
  writeFileSync(join(build, 'books-api.d.ts'), types)
  copyFileSync(PROGRAM, join(build, 'program.ts'))
  writeFileSync(join(build, 'example.ts'), `${docsExample().replaceAll('http://localhost:8080', server.url)}\nexport {}\n`)
  writeFileSync(join(build, 'package.json'), '{"type": "module"}\n')
  // The program resolves openapi-fetch (and tsc its types) from this repository's dependencies.
  symlinkSync(join(ROOT, 'node_modules'), join(build, 'node_modules'), 'dir')

  const compiler = ['--strict', '--noUncheckedIndexedAccess', '--target', 'es2022', '--module', 'nodenext', '--skipLibCheck', '--types', 'node', 'program.ts', 'example.ts']
  const compiled = await run(process.execPath, [TSC, ...compiler], { cwd: build }).catch((error: { stdout: string }) => error)
  assert.equal(compiled.stdout, '', `tsc --strict refused the program:\n${compiled.stdout}`)

  const ran = await run(process.execPath, ['program.js'], { cwd: build, env: { BASE_URL: server.url, ADMIN_PASSWORD: TEST_PASSWORD } }).catch(
    (error: { stdout: string; stderr: string }) => assert.fail(`the program failed:\n${error.stdout}\n${error.stderr}`)
  )
  const families = ran.stdout.trim().split('\n').map((line) => JSON.parse(line) as { family: string } & Record<string, unknown>)
  assert.deepEqual(families.map(({ family }) => family), ['books', 'history', 'search', 'users', 'tokens', 'webhooks', 'changes', 'health'])
  assert.deepEqual(families[0], { family: 'books', pages: 3, total: 5, etag: true, preconditionFailed: 412 })
  assert.deepEqual(families[1], { family: 'history', versions: ['2:updated', '1:created'], restoredYear: 1960 })
  assert.deepEqual(families[6], { family: 'changes', first: 'created', book: 'Dune' })

  // The docs' example, with an editor's API token: finds Dune (restored to 1960 above), then updates it under If-Match.
  const example = await run(process.execPath, ['example.js'], { cwd: build, env: { PROGRAM_TOKEN: await apiToken(server.url, 'editor') } }).catch(
    (error: { stdout: string; stderr: string }) => assert.fail(`the docs example failed:\n${error.stdout}\n${error.stderr}`)
  )
  assert.equal(example.stdout, '1 Dune 1960\nBook updated successfully\n')
})
