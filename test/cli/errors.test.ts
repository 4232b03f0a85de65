import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { TEST_SECRET } from '../support/app.js'
import { runCli } from '../support/cli.js'
import { CLI_ENTRY, freePort, removeDirectory, temporaryDirectory } from '../support/server.js'
import { processSkipReason } from '../support/scope.js'

const COMMAND_LIST = 'commands: serve, token, migrate, backup, restore, export, import, user, api-token, watch, webhooks, history (serve is the default); book-service COMMAND --help for its options\n'

describe('the command line says what went wrong (the built CLI)', { skip: processSkipReason }, () => {
  let directory: string
  const cli = (args: string[]) => runCli(args, { cwd: directory, env: { DATABASE_URL: join(directory, 'books.db'), SECRET_TOKEN: TEST_SECRET } })
  before(() => {
    directory = temporaryDirectory()
  })
  after(() => removeDirectory(directory))

  test('an unknown command or option is named as such, with the list of commands', async () => {
    const unknown = await cli(['frobnicate'])
    assert.equal(unknown.code, 1)
    assert.equal(unknown.stdout, '')
    assert.equal(unknown.stderr, `error: unknown command 'frobnicate'\n${COMMAND_LIST}`)
    const option = await cli(['--frob'])
    assert.equal(option.code, 1)
    assert.equal(option.stderr, `error: unknown option '--frob'\n${COMMAND_LIST}`)
    const commandOption = await cli(['token', '--frob'])
    assert.equal(commandOption.code, 1)
    assert.equal(commandOption.stderr, "error: unknown option '--frob'\nbook-service token --help lists its options\n")
    const subcommand = await cli(['user', 'frob'])
    assert.equal(subcommand.code, 1)
    assert.equal(
      subcommand.stderr,
      "error: unknown command 'frob'\nbook-service user commands: add, list, set-role, passwd, remove; book-service user COMMAND --help for its options\n"
    )
    const missing = await cli(['backup'])
    assert.equal(missing.stderr, "error: missing required argument 'file'\nbook-service backup --help lists its options\n")
  })

  test('watch names the feed it cannot reach and how long it waits before each new try', async () => {
    const url = `http://127.0.0.1:${await freePort()}`
    const child = spawn(process.execPath, [CLI_ENTRY, 'watch', '--url', url], {
      cwd: directory,
      env: { PATH: process.env.PATH ?? '', SECRET_TOKEN: TEST_SECRET },
      stdio: ['ignore', 'pipe', 'pipe']
    })
    let stderr = ''
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve))
    await new Promise<void>((resolve) =>
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString()
        if (stderr.split('\n').length > 2) resolve()
      })
    )
    child.kill('SIGTERM')
    assert.equal(await exited, 0)
    const lines = stderr.trimEnd().split('\n')
    const line = new RegExp(
      `^book-service watch: cannot follow ${url}/books/changes \\(fetch failed: connect ECONNREFUSED [0-9.:]+\\); trying again in ([0-9.]+) s \\(the wait doubles while it fails, up to 30 s\\)$`
    )
    // 1 s, then 2 s, each with up to half taken off at random (docs/change-feed.md "Change feed").
    const waits = lines.slice(0, 2).map((text) => Number(line.exec(text)?.[1]))
    assert.ok(waits[0]! >= 0.5 && waits[0]! <= 1, lines[0])
    assert.ok(waits[1]! >= 1 && waits[1]! <= 2, lines[1])
  })

  test('a CSV file with stray quotes: every invalid row is listed with its line, the rows after a bad quote are still checked', async () => {
    const rows = [
      'id,title,author,year',
      '1,Fine,Author,1999',
      '2,Say "hi",Author,2000', // a quote inside an unquoted field
      '3,"Quoted" after,Author,2001', // text after a closing quote
      '4,,Author,2002', // a book rule
      '5,"Two\r\nlines, fine",Author,2003', // a quoted line break: one valid row over lines 6 and 7
      '6,"Never closed,Author,2004',
      '7,Fine again,Author,2005',
      '8,Bad year,Author,20.5'
    ]
    writeFileSync(join(directory, 'quotes.csv'), `${rows.join('\r\n')}\r\n`)
    const refused = await cli(['import', 'quotes.csv'])
    assert.equal(refused.code, 1)
    assert.equal(refused.stdout, '')
    assert.equal(
      refused.stderr,
      'book-service: import refused, nothing was stored: 5 invalid rows in quotes.csv\n' +
        '  line 3: has a quote inside a field that does not start with one (quote the whole field and double each quote in it: "say ""hi""")\n' +
        '  line 4: has more after a closing quote (a quote inside a quoted field is written twice: "")\n' +
        '  line 5: title must not be empty or only white space\n' +
        '  line 8: opens a quote that is never closed\n' +
        '  line 10: year must be an integer from -9999 to 9999\n'
    )
    writeFileSync(join(directory, 'header.csv'), 'id,ti"tle,author,year\r\n1,A,B,1\r\n')
    const header = await cli(['import', 'header.csv'])
    assert.equal(header.code, 1)
    assert.match(header.stderr, /^book-service: header\.csv: not valid CSV at line 1: the header row has a quote inside a field/)
  })

  test('backup and export to a missing folder name the destination given, never a temporary file', async () => {
    assert.equal((await cli(['migrate'])).code, 0)
    const backup = await cli(['backup', 'nope/b.db'])
    assert.equal(backup.code, 1)
    assert.equal(backup.stderr, 'book-service: backup failed: cannot write nope/b.db: there is no folder nope\n')
    const exported = await cli(['export', '--output', 'nope/books.csv'])
    assert.equal(exported.code, 1)
    assert.equal(exported.stderr, 'book-service: export failed: cannot write nope/books.csv: there is no folder nope\n')
    assert.ok(!existsSync(join(directory, 'nope')))
    assert.deepEqual(readdirSync(directory).filter((name) => name.endsWith('.tmp')), [])
  })

  test('one book is "1 book"; export --output says what it wrote', async () => {
    writeFileSync(join(directory, 'one.ndjson'), '{"title":"Dune","author":"Frank Herbert","year":1965}\n')
    const imported = await cli(['import', 'one.ndjson'])
    assert.equal(imported.stdout, 'book-service: stored 1 book from one.ndjson\n')
    const backup = await cli(['backup', 'one.db'])
    assert.equal(backup.stdout, 'book-service: backup of 1 book written to one.db (integrity ok)\n')
    const exported = await cli(['export', '--output', 'one.csv'])
    assert.equal(exported.code, 0, exported.stderr)
    assert.equal(exported.stdout, 'book-service: exported 1 book to one.csv (CSV)\n')
    assert.equal(readFileSync(join(directory, 'one.csv'), 'utf8'), 'id,title,author,year\r\n1,Dune,Frank Herbert,1965\r\n')
    const toStdout = await cli(['export'])
    assert.equal(toStdout.stdout, '{"id":1,"title":"Dune","author":"Frank Herbert","year":1965}\n', 'to stdout: the books only')
    assert.equal((await cli(['restore', 'one.db'])).stdout.split(' from ')[0], 'book-service: restored 1 book')
  })
})
