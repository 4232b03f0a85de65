/**
 * `npm run test:unit`: node's test runner over every `test/**\/*.test.ts` and `web/test/**\/*.test.ts`,
 * `TEST_CONCURRENCY` files at a time (default 4), with the spec reporter; under
 * `TEST_SCOPE=node-line` only the files of test/support/scope.ts `nodeLineFiles`; under
 * `TEST_SCOPE=fast` (`npm run test:fast`) none of test/process/, test/storage/postgres/ and
 * `fastLeftOutFiles`, whose tests that scope would all skip. Each scope says so in one line.
 * Exits with the runner's code.
 *
 * @throws (exits 1) when `nodeLineFiles` or `fastLeftOutFiles` names a file that does not exist,
 * so a renamed test is never dropped or run unseen.
 */
import { spawnSync } from 'node:child_process'
import { existsSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { fastLeftOutFiles, fastScope, nodeLineFiles, nodeLineScope } from '../test/support/scope.js'

const root = new URL('..', import.meta.url).pathname

/** Every `*.test.ts` under `folder` (relative to the repository), sorted. */
function testFiles(folder: string): string[] {
  return readdirSync(join(root, folder), { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.test.ts'))
    .map((name) => `${folder}/${name}`)
    .sort()
}

/** Exits 1, naming them, when `list` (named `name` in test/support/scope.ts) holds files that do not exist. */
function mustExist(name: string, list: readonly string[]): void {
  const missing = list.filter((file) => !existsSync(join(root, file)))
  if (missing.length === 0) return
  console.error(`test/support/scope.ts ${name} names files that do not exist: ${missing.join(', ')}`)
  process.exit(1)
}

let files = [...testFiles('test'), ...testFiles('web/test')]
if (fastScope) {
  mustExist('fastLeftOutFiles', fastLeftOutFiles)
  const leftOut = new Set(fastLeftOutFiles)
  files = files.filter((file) => !leftOut.has(file) && !file.startsWith('test/process/') && !file.startsWith('test/storage/postgres/'))
  console.log(`# TEST_SCOPE=fast: ${files.length} test files; test/process/, test/storage/postgres/ and ${leftOut.size} more are not loaded (every test in them needs the build, a browser or PostgreSQL; npm test runs them)`)
}
if (nodeLineScope) {
  mustExist('nodeLineFiles', nodeLineFiles)
  console.log(`# TEST_SCOPE=node-line: ${nodeLineFiles.length} of ${files.length} test files, those that exercise the Node.js runtime (test/support/scope.ts nodeLineFiles); all of them run on Node.js 24`)
  files = [...nodeLineFiles]
}

const run = spawnSync(
  process.execPath,
  ['--import', 'tsx', '--test', '--test-reporter=spec', `--test-concurrency=${process.env.TEST_CONCURRENCY ?? 4}`, ...files],
  { cwd: root, stdio: 'inherit' }
)
process.exit(run.status ?? 1)
