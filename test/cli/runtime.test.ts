import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { test } from 'node:test'
import { isSupportedNode, SUPPORTED_NODE_LINES, unsupportedNodeMessage } from '../../src/cli/runtime.js'
import { CLI_ENTRY, SERVER_ENTRY } from '../support/server.js'

test('the supported lines are 22, 24 and 26, as package.json engines.node says', () => {
  const engines = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { engines: { node: string } }).engines.node
  assert.deepEqual(SUPPORTED_NODE_LINES, [22, 24, 26])
  assert.equal(engines, SUPPORTED_NODE_LINES.map((line) => `^${line}.0.0`).join(' || '))
  for (const version of ['v22.0.0', 'v22.23.3', 'v24.21.0', 'v26.10.0']) assert.equal(isSupportedNode(version), true, version)
  for (const version of ['v18.20.0', 'v20.20.2', 'v21.7.3', 'v23.11.0', 'v25.0.0', 'v27.0.0', 'garbage']) assert.equal(isSupportedNode(version), false, version)
  assert.equal(isSupportedNode(process.version), true, 'the tests themselves run on a supported line')
  assert.equal(
    unsupportedNodeMessage('v20.20.2'),
    'book-service: Node.js v20.20.2 is not supported; run it on Node.js 22, 24 or 26 (npm start and npm test bring Node.js 24 themselves)\n'
  )
})

// These machines' system Node.js is 20 (end of life): started on it directly, each entry point must
// say so in one line and exit 1, never abort in the native SQLite binding or print a stack trace.
const OLD_NODE = process.env.TEST_OLD_NODE ?? '/usr/bin/node'
const oldVersion = existsSync(OLD_NODE) ? spawnSync(OLD_NODE, ['--version'], { encoding: 'utf8' }).stdout.trim() : ''
const skip = oldVersion === '' ? `no Node.js at ${OLD_NODE} (TEST_OLD_NODE)` : isSupportedNode(oldVersion) ? `${OLD_NODE} is ${oldVersion}, a supported line` : false

for (const [name, entry, args] of [['dist/start.js', SERVER_ENTRY, []], ['dist/book-service.js', CLI_ENTRY, ['token']]] as const) {
  test(`${name} started on an unsupported Node.js: one line naming the versions it needs, exit 1`, { skip }, () => {
    const run = spawnSync(OLD_NODE, [entry, ...args], { encoding: 'utf8', env: { PATH: process.env.PATH ?? '' }, timeout: 30_000 })
    assert.equal(run.status, 1, run.stderr)
    assert.equal(run.signal, null)
    assert.equal(run.stdout, '')
    assert.equal(run.stderr, unsupportedNodeMessage(oldVersion))
  })
}
