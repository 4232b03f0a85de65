import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { copyFileSync, mkdirSync, readdirSync, symlinkSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import { isSupportedNode } from '../../src/cli/runtime.js'
import { removeDirectory, temporaryDirectory } from '../support/server.js'

const ROOT = new URL('../../', import.meta.url).pathname

// The system's npm, on the system's Node.js (20 on these machines), as a newcomer runs `npx`.
const OLD_PATH = '/usr/local/bin:/usr/bin:/bin'
const which = spawnSync('sh', ['-c', 'command -v npx && node --version'], { encoding: 'utf8', env: { PATH: OLD_PATH } })
const [npx, oldVersion] = which.stdout.trim().split('\n')
const skip = which.status !== 0 ? `no npx and node on ${OLD_PATH}` : isSupportedNode(oldVersion!) ? `the system's Node.js is ${oldVersion}, a supported line` : false

/**
 * `npx book-service` in the project's folder: npx links the folder into its cache (a fresh cache
 * here, as on a new machine) and checks the linked package's `engines` against the Node.js npm runs
 * on; a range without that line gave two `npm warn EBADENGINE` blocks (the link and its target).
 * engines.node names the lines that may start the entries (src/cli/runtime.ts).
 */
test('npx book-service in the project folder on an unsupported Node.js: no engine warning, the command answers', { skip }, () => {
  const directory = temporaryDirectory()
  try {
    for (const file of ['package.json', 'package-lock.json']) copyFileSync(join(ROOT, file), join(directory, file))
    symlinkSync(join(ROOT, 'dist'), join(directory, 'dist'))
    const modules = join(directory, 'node_modules')
    mkdirSync(modules)
    for (const entry of readdirSync(join(ROOT, 'node_modules'))) {
      if (!entry.startsWith('.')) symlinkSync(join(ROOT, 'node_modules', entry), join(modules, entry))
    }
    const env = { PATH: OLD_PATH, HOME: directory, npm_config_cache: join(directory, 'npm-cache'), npm_config_update_notifier: 'false' }
    const run = spawnSync(npx!, ['book-service', '--version'], { cwd: directory, encoding: 'utf8', env, timeout: 120_000 })
    assert.equal(run.status, 0, run.stderr)
    assert.equal(run.stdout, '1.0.0\n')
    assert.doesNotMatch(run.stderr, /npm warn/)
    assert.match(run.stderr, /^book-service: using its bundled Node\.js v\d+\.\d+\.\d+ \(the node on PATH is v\d+\.\d+\.\d+\)\n$/)
  } finally {
    removeDirectory(directory)
  }
})
