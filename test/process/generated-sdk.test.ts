import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { copyFileSync, symlinkSync, writeFileSync } from 'node:fs'
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
 * compiled with `tsc --strict`, once, and run against the same service. A document that types a
 * parameter, a header or an answer wrongly fails the compile; one that does not match the
 * service fails the run.
 */

const run = promisify(execFile)
const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const PROGRAM = fileURLToPath(new URL('./generated-sdk/program.ts', import.meta.url))
const TSC = join(ROOT, 'node_modules/typescript/bin/tsc')

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
  writeFileSync(join(build, 'schema.d.ts'), astToString(await openapiTS((await served.json()) as never)))
  copyFileSync(PROGRAM, join(build, 'program.ts'))
  writeFileSync(join(build, 'package.json'), '{"type": "module"}\n')
  // The program resolves openapi-fetch (and tsc its types) from this repository's dependencies.
  symlinkSync(join(ROOT, 'node_modules'), join(build, 'node_modules'), 'dir')

  const compiler = ['--strict', '--noUncheckedIndexedAccess', '--target', 'es2022', '--module', 'nodenext', '--skipLibCheck', '--types', 'node', 'program.ts']
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
})
