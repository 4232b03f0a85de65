import assert from 'node:assert/strict'
import { statSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import { makeFolder } from '../../src/storage/files.js'
import { removeDirectory, temporaryDirectory } from '../support/server.js'

test('makeFolder creates the missing levels with the mode given, and leaves an existing folder alone', () => {
  const root = temporaryDirectory()
  try {
    const path = join(root, 'a', 'b', 'c')
    makeFolder(path, 0o700)
    assert.equal(statSync(path).mode & 0o777, 0o700)
    assert.equal(statSync(join(root, 'a')).mode & 0o777, 0o700)
    makeFolder(path, 0o755)
    assert.equal(statSync(path).mode & 0o777, 0o700)
  } finally {
    removeDirectory(root)
  }
})

test('makeFolder fails with the OS error under a folder that cannot hold folders, instead of never returning', () => {
  assert.throws(() => makeFolder('/proc/nope/data', 0o700), { code: 'ENOENT' })
})
