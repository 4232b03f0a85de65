/**
 * `npm run test:unit`: node's test runner over every `test/**\/*.test.ts` and `web/test/**\/*.test.ts`,
 * `TEST_CONCURRENCY` files at a time (default 4), with the spec reporter; under
 * `TEST_SCOPE=node-line` without the files that scope would only load to skip
 * (test/support/scope.ts `nodeLineLeftOutFiles`), named in one line. Exits with the runner's code.
 *
 * @throws (exits 1) when `nodeLineLeftOutFiles` names a file that does not exist, so a renamed
 * test is never left out unseen.
 */
import { spawnSync } from 'node:child_process'
import { existsSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { nodeLineLeftOutFiles, nodeLineScope } from '../test/support/scope.js'

const root = new URL('..', import.meta.url).pathname

/** Every `*.test.ts` under `folder` (relative to the repository), sorted. */
function testFiles(folder: string): string[] {
  return readdirSync(join(root, folder), { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.test.ts'))
    .map((name) => `${folder}/${name}`)
    .sort()
}

let files = [...testFiles('test'), ...testFiles('web/test')]
if (nodeLineScope) {
  const missing = nodeLineLeftOutFiles.filter((file) => !existsSync(join(root, file)))
  if (missing.length > 0) {
    console.error(`test/support/scope.ts nodeLineLeftOutFiles names files that do not exist: ${missing.join(', ')}`)
    process.exit(1)
  }
  const leftOut = new Set(nodeLineLeftOutFiles)
  files = files.filter((file) => !leftOut.has(file))
  console.log(`# TEST_SCOPE=node-line: ${leftOut.size} files not loaded (every test in them is in-process, PostgreSQL, browser or a documentation example; they run on Node.js 24; test/support/scope.ts)`)
}

const run = spawnSync(
  process.execPath,
  ['--import', 'tsx', '--test', '--test-reporter=spec', `--test-concurrency=${process.env.TEST_CONCURRENCY ?? 4}`, ...files],
  { cwd: root, stdio: 'inherit' }
)
process.exit(run.status ?? 1)
