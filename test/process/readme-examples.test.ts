import assert from 'node:assert/strict'
import { execFileSync, spawnSync } from 'node:child_process'
import { dirname } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { DOCUMENTATION } from '../support/documentation.js'
import { removeDirectory, startServer, temporaryDirectory, type RunningServer } from '../support/server.js'

/**
 * The curl examples of the README and its docs/ pages, run one after the other on a new data folder exactly as
 * written (only `localhost:8080` becomes the test server's address), print exactly what the
 * README shows: the walk-through, the paging examples (their `# …` comments), the paging loop,
 * the `ETag` example and the history and restore example. Needs bash and curl; skipped per test, with the reason, without them.
 */
const tools = ['bash', 'curl'].filter((tool) => spawnSync(tool, ['--version']).status !== 0)
const skip = tools.length > 0 ? `${tools.join(' and ')} not found: README examples not run` : undefined

/** The fenced blocks of the README and docs/, in order, with their language. */
const blocks = [...DOCUMENTATION.matchAll(/```(\w*)\n([\s\S]*?)```/g)].map((match) => ({ lang: match[1]!, text: match[2]! }))

/** The `sh` block containing `marker`, and the plain block that follows it (what it prints). */
function example(marker: string): { script: string; shown: string | undefined } {
  const at = blocks.findIndex((block) => block.lang === 'sh' && block.text.includes(marker))
  assert.ok(at >= 0, `the README or docs/ has an example with ${marker}`)
  const next = blocks[at + 1]
  return { script: blocks[at]!.text, shown: next && next.lang === '' ? next.text : undefined }
}

describe('README examples', () => {
  let directory = ''
  let server: RunningServer
  before(async () => {
    if (skip) return
    directory = temporaryDirectory()
    // A new data folder, the defaults of a fresh clone: the password generated into ./data.
    server = await startServer({ dataDirectory: directory, env: { DATABASE_URL: '', AUTH_PASSWORD: '', LOG_LEVEL: 'warn' } })
  })
  after(async () => {
    if (skip) return
    assert.equal(await server.stop(), 0)
    removeDirectory(directory)
  })

  test('the walk-through, paging and ETag examples print exactly what the README shows', { skip }, () => {
    const walk = example('# 1. Log in')
    const filters = example('author=herbert&sort=-year')
    const loop = example('next="/books?limit=1"')
    const etag = example('ETAG=$(curl')
    const search = example("q=TONI morison")
    const history = example('/book/1/history?limit=2')
    const script = [walk, search, filters, loop, etag, history].map((part) => part.script).join('').replaceAll('localhost:8080', `127.0.0.1:${server.port}`)
    const output = execFileSync('bash', ['-e', '-c', script], {
      cwd: directory,
      encoding: 'utf8',
      env: { PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}` }
    })
    const comments = filters.script.split('\n').filter((line) => line.startsWith('# ')).map((line) => `${line.slice(2)}\n`).join('')
    assert.ok(walk.shown && search.shown && loop.shown && etag.shown && history.shown, 'each example shows its output')
    // Header lines that grep prints end in CR LF as HTTP sends them; a terminal shows them the same.
    assert.equal(output.replaceAll('\r\n', '\n'), walk.shown + search.shown + comments + loop.shown + etag.shown + history.shown)
  })
})
