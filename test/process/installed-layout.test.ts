import assert from 'node:assert/strict'
import { cpSync, mkdirSync, readdirSync, symlinkSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import { authHeaders } from '../support/app.js'
import { removeDirectory, startServer, temporaryDirectory } from '../support/server.js'

const ROOT = new URL('../../', import.meta.url).pathname

/**
 * The built service (`dist/`, bundled by scripts/bundle.ts) installed the way npm installs a
 * dependency: `node_modules/book-service/dist` with every package it needs hoisted beside it, not
 * in a `node_modules` of its own. better-sqlite3 and the files the docs page serves from its
 * package folder must still be found.
 */
test('the built service installed as a dependency (packages hoisted): starts, serves books and the docs page with its files', async () => {
  const directory = temporaryDirectory()
  try {
    const modules = join(directory, 'node_modules')
    const installed = join(modules, 'book-service')
    mkdirSync(installed, { recursive: true })
    cpSync(join(ROOT, 'dist'), join(installed, 'dist'), { recursive: true })
    cpSync(join(ROOT, 'package.json'), join(installed, 'package.json'))
    for (const entry of readdirSync(join(ROOT, 'node_modules'))) {
      if (!entry.startsWith('.')) symlinkSync(join(ROOT, 'node_modules', entry), join(modules, entry))
    }
    const data = join(directory, 'data')
    mkdirSync(data)
    const server = await startServer({ dataDirectory: data, command: [join(installed, 'dist', 'start.js')] })
    try {
      const books = await fetch(`${server.url}/books`, { headers: authHeaders() })
      assert.equal(books.status, 200)
      const page = await fetch(`${server.url}/docs`)
      assert.equal(page.status, 200)
      assert.match(await page.text(), /<html/i)
      const logo = await fetch(`${server.url}/docs/static/logo.svg`)
      assert.equal(logo.status, 200)
      assert.match(await logo.text(), /<svg/)
    } finally {
      assert.equal(await server.stop('SIGTERM'), 0)
    }
  } finally {
    removeDirectory(directory)
  }
})
