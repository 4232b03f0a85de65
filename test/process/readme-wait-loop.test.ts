import assert from 'node:assert/strict'
import { execFileSync, spawnSync } from 'node:child_process'
import { chmodSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import { freePort, removeDirectory, startServer, temporaryDirectory } from '../support/server.js'
import { DOCUMENTATION } from '../support/documentation.js'


const tools = ['bash', 'curl'].filter((tool) => spawnSync(tool, ['--version']).status !== 0)

/**
 * The README's wait for two instances ("Running several instances", two instances by hand), run as
 * written with only its ports changed: it prints each instance's `/readyz` once it is ready, and
 * gives up on one that never is, with a line saying so, instead of waiting forever. Its `sleep`
 * is a stand-in that returns at once, so the 30 s bound costs no time here.
 */
test("the README's wait for the instances: ready ones answer, one that never starts is given up on with a message", { skip: tools.length > 0 ? `${tools.join(' and ')} not found` : false }, async () => {
  const loop = /^for port in 8081 8082; do[^\n]*\n(?: [^\n]*\n)*/m.exec(DOCUMENTATION)?.[0]
  assert.ok(loop, 'the documentation has the wait loop')
  const directory = temporaryDirectory()
  const server = await startServer({ dataDirectory: directory })
  try {
    const silent = await freePort()
    writeFileSync(join(directory, 'sleep'), '#!/bin/sh\nexit 0\n')
    chmodSync(join(directory, 'sleep'), 0o755)
    const script = loop.replace('8081 8082', `${server.port} ${silent}`)
    const output = execFileSync('bash', ['-c', script], { cwd: directory, encoding: 'utf8', env: { PATH: `${directory}:${process.env.PATH ?? ''}` }, timeout: 60_000 })
    assert.equal(output, `{"status":200,"message":"OK","data":null}\nno instance ready on port ${silent} after 30 s: see its output above\n\n`)
  } finally {
    assert.equal(await server.stop(), 0)
    removeDirectory(directory)
  }
})
