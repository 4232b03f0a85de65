import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import Database from 'better-sqlite3'
import { createVerifier } from 'fast-jwt'
import { MIGRATION_NAMES } from '../../src/storage/schema/migrate.js'
import { TEST_PASSWORD, TEST_SECRET } from '../support/app.js'
import { ACCOUNT_PASSWORD } from '../support/accounts.js'
import { runCli } from '../support/cli.js'
import { eventually } from '../support/client.js'
import { createPostgresDatabase, engines, type TestDatabase } from '../support/engines.js'
import { CLI_ENTRY, removeDirectory, startServer, temporaryDirectory } from '../support/server.js'
import { processSkipReason } from '../support/scope.js'

const version = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version

const run = runCli

/** Every command of the CLI. */
const COMMANDS = ['serve', 'token', 'migrate', 'backup', 'restore', 'export', 'import', 'user', 'api-token', 'watch', 'webhooks', 'history']

const decode = (token: string) => createVerifier({ key: TEST_SECRET, algorithms: ['HS256'] })(token) as Record<string, number | string>

describe('book-service (the built CLI)', { skip: processSkipReason }, () => {
  let directory: string
  before(() => {
    directory = temporaryDirectory()
  })
  after(() => removeDirectory(directory))

  test('the bin entry is dist/book-service.js and starts with a node shebang', () => {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { bin: Record<string, string> }
    assert.equal(pkg.bin['book-service'], 'dist/book-service.js')
    assert.match(readFileSync(CLI_ENTRY, 'utf8'), /^#!\/usr\/bin\/env node\n/)
  })

  test('--help and --version on the program and on each command', async () => {
    const help = await run(['--help'], { cwd: directory })
    assert.equal(help.code, 0)
    for (const command of COMMANDS) assert.match(help.stdout, new RegExp(`^  ${command} `, 'm'))
    const userHelp = (await run(['user', '--help'], { cwd: directory })).stdout
    for (const command of ['add', 'list', 'set-role', 'passwd', 'remove']) assert.match(userHelp, new RegExp(`^  ${command} `, 'm'))
    assert.equal((await run(['--version'], { cwd: directory })).stdout, `${version}\n`)
    for (const command of COMMANDS) {
      const commandHelp = await run([command, '--help'], { cwd: directory })
      assert.equal(commandHelp.code, 0)
      assert.match(commandHelp.stdout, new RegExp(`^Usage: book-service ${command}`))
      const commandVersion = await run([command, '--version'], { cwd: directory })
      assert.equal(commandVersion.code, 0)
      assert.equal(commandVersion.stdout, `${version}\n`)
    }
    assert.match((await run(['token', '--help'], { cwd: directory })).stdout, /--sub <name>[\s\S]*--ttl <seconds>/)
    assert.match((await run(['export', '--help'], { cwd: directory })).stdout, /--format <format>[\s\S]*--output <file>/)
    assert.match((await run(['import', '--help'], { cwd: directory })).stdout, /Usage: book-service import \[options\] <file>[\s\S]*--keep-ids/)
    assert.match((await run(['backup', '--help'], { cwd: directory })).stdout, /0 3 \* \* \* /)
  })

  test('token: signed with SECRET_TOKEN, sub = AUTH_USERNAME, lifetime TOKEN_TTL; --sub and --ttl override', async () => {
    const env = { SECRET_TOKEN: TEST_SECRET, DATABASE_URL: join(directory, 'books.db') }
    const plain = await run(['token'], { cwd: directory, env })
    assert.equal(plain.code, 0, plain.stderr)
    assert.match(plain.stdout, /^[\w-]+\.[\w-]+\.[\w-]+\n$/)
    const claims = decode(plain.stdout.trim())
    assert.equal(claims.sub, 'admin')
    assert.equal(Number(claims.exp) - Number(claims.iat), 3600)

    const custom = await run(['token', '--sub', 'robot', '--ttl', '60'], { cwd: directory, env: { ...env, AUTH_USERNAME: 'ignored' } })
    assert.equal(custom.code, 0, custom.stderr)
    const customClaims = decode(custom.stdout.trim())
    assert.equal(customClaims.sub, 'robot')
    assert.equal(Number(customClaims.exp) - Number(customClaims.iat), 60)

    const configured = decode((await run(['token'], { cwd: directory, env: { ...env, AUTH_USERNAME: 'alice', TOKEN_TTL: '90' } })).stdout.trim())
    assert.equal(configured.sub, 'alice')
    assert.equal(Number(configured.exp) - Number(configured.iat), 90)
  })

  test('token: bad options and bad configuration exit 1 with one line', async () => {
    for (const ttl of ['0', 'abc', '1.5', '31536001']) {
      const bad = await run(['token', '--ttl', ttl], { cwd: directory, env: { SECRET_TOKEN: TEST_SECRET } })
      assert.equal(bad.code, 1, ttl)
      assert.equal(bad.stdout, '')
      assert.match(bad.stderr, /--ttl/)
    }
    const badConfig = await run(['token'], { cwd: directory, env: { SECRET_TOKEN: TEST_SECRET, TOKEN_TTL: 'soon' } })
    assert.equal(badConfig.code, 1)
    assert.equal(badConfig.stderr, 'book-service: Invalid configuration: TOKEN_TTL must be an integer number of seconds from 1 to 31536000 (got "soon")\n')
    const postgres = await run(['token'], { cwd: directory, env: { DATABASE_URL: 'postgres://127.0.0.1:1/none' } })
    assert.equal(postgres.code, 1)
    assert.match(postgres.stderr, /SECRET_TOKEN must be set when DATABASE_URL is PostgreSQL/)
    const unknown = await run(['frobnicate'], { cwd: directory })
    assert.equal(unknown.code, 1)
  })

  test('token without SECRET_TOKEN uses the secret kept in the data folder, which the server then accepts', async () => {
    const data = join(directory, 'generated')
    const env = { DATABASE_URL: join(data, 'books.db'), SECRET_TOKEN: '' }
    const minted = await run(['token'], { cwd: directory, env })
    assert.equal(minted.code, 0, minted.stderr)
    const token = minted.stdout.trim()
    const server = await startServer({ dataDirectory: data, env })
    try {
      const response = await fetch(`${server.url}/books`, { headers: { authorization: token } })
      assert.equal(response.status, 200)
      const forged = await fetch(`${server.url}/books`, { headers: { authorization: `Bearer ${token}x` } })
      assert.equal(forged.status, 401)
    } finally {
      assert.equal(await server.stop(), 0)
    }
  })

  test('migrate: applies the migrations and exits without serving', async () => {
    const file = join(directory, 'migrated.db')
    const migrated = await run(['migrate'], { cwd: directory, env: { DATABASE_URL: file, PORT: '1' } })
    assert.equal(migrated.code, 0, migrated.stderr)
    assert.match(migrated.stderr, /migrations applied/)
    const db = new Database(file, { readonly: true })
    try {
      const names = db.prepare('SELECT name FROM kysely_migration ORDER BY name').all() as Array<{ name: string }>
      assert.deepEqual(names.map((row) => row.name), [...MIGRATION_NAMES])
      assert.deepEqual(db.prepare('SELECT count(*) AS n FROM books').get(), { n: 0 })
    } finally {
      db.close()
    }
    const again = await run(['migrate'], { cwd: directory, env: { DATABASE_URL: file } })
    assert.equal(again.code, 0, again.stderr)
  })

  test('serve (also the default command) runs the service and stops with exit 0 on SIGTERM', async () => {
    for (const command of [[CLI_ENTRY, 'serve'], [CLI_ENTRY]]) {
      const server = await startServer({ dataDirectory: directory, command })
      try {
        const response = await fetch(`${server.url}/openapi.json`)
        assert.equal(response.status, 200)
      } finally {
        assert.equal(await server.stop(), 0)
      }
    }
  })
})

for (const { engine, skip } of engines) {
  describe(`book-service user, with the service running and stopped [${engine}]`, { skip: processSkipReason ?? skip }, () => {
    let directory: string
    let database: TestDatabase | undefined
    let env: Record<string, string>
    before(async () => {
      directory = temporaryDirectory()
      database = engine === 'postgres' ? await createPostgresDatabase() : undefined
      env = { DATABASE_URL: database?.url ?? join(directory, 'books.db'), SECRET_TOKEN: TEST_SECRET, AUTH_PASSWORD: TEST_PASSWORD }
    })
    after(async () => {
      await database?.drop()
      removeDirectory(directory)
    })
    const user = (args: string[], input?: string) => run(['user', ...args], { cwd: directory, env, input })

    test('stopped: add (password on stdin), list, set-role, passwd, remove; refusals exit 1 with one line', async () => {
      const added = await user(['add', 'Dana', '--role', 'editor', '--password-stdin'], `${ACCOUNT_PASSWORD}\n`)
      assert.equal(added.code, 0, added.stderr)
      assert.equal(added.stderr, 'book-service: created user "Dana" with role editor\n')
      const listed = await user(['list'])
      assert.equal(listed.code, 0, listed.stderr)
      const rows = listed.stdout.trim().split('\n').map((line) => line.split(/ +/))
      assert.deepEqual(rows.map((row) => row.slice(0, 2)), [['USERNAME', 'ROLE'], ['Dana', 'editor']])
      const listedJson = await user(['list', '--json'])
      assert.deepEqual(
        listedJson.stdout.trimEnd().split('\n').map((line) => JSON.parse(line) as { username: string; role: string }).map((account) => [account.username, account.role]),
        [['Dana', 'editor']]
      )
      assert.doesNotMatch(listed.stdout + added.stdout + added.stderr, /scrypt|passphrase/)
      const refusals: Array<[string[], string | undefined, string]> = [
        [['add', 'dana', '--role', 'reader', '--password-stdin'], ACCOUNT_PASSWORD, 'User already exists'],
        [['add', 'eve', '--role', 'root', '--password-stdin'], ACCOUNT_PASSWORD, 'the role must be reader, editor or admin (got "root")'],
        [['add', 'eve', '--role', 'reader', '--password-stdin'], 'too short', 'the password must be 12 to 1024 characters'],
        [['add', 'eve', '--role', 'reader'], undefined, 'no terminal to ask for the password on: give it on standard input with --password-stdin'],
        [['add', 'a/b', '--role', 'reader', '--password-stdin'], ACCOUNT_PASSWORD, 'the username must be 1 to 64 characters, no white space at either end, no `/`, no control, format or other invisible character (Unicode Cc, Cf, Zl, Zp, default ignorable)'],
        [['set-role', 'nobody', 'reader'], undefined, 'User not found'],
        [['remove', 'nobody'], undefined, 'User not found'],
        [['set-role', 'dana', 'admin'], undefined, ''],
        [['remove', 'dana'], undefined, 'Cannot remove the last admin']
      ]
      for (const [args, input, message] of refusals) {
        const result = await user(args, input)
        if (message === '') {
          assert.equal(result.code, 0, result.stderr)
          continue
        }
        assert.equal(result.code, 1, args.join(' '))
        assert.equal(result.stderr, `book-service: ${message}\n`, args.join(' '))
      }
      assert.equal((await user(['set-role', 'DANA', 'editor'])).stderr, 'book-service: Cannot remove the last admin\n')
      const passwd = await user(['passwd', 'dana', '--password-stdin'], 'another passphrase')
      assert.equal(passwd.code, 0, passwd.stderr)
    })

    test('running: the service sees the bootstrap admin and the accounts the command changes; tokens are revoked', async () => {
      const server = await startServer({ dataDirectory: directory, env })
      try {
        const login = async (username: string, password: string) => {
          const response = await fetch(`${server.url}/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username, password }) })
          return response.status === 200 ? ((await response.json()) as { data: { token: string } }).data.token : String(response.status)
        }
        // Dana was made admin while no admin existed, so AUTH_USERNAME was not added.
        assert.equal(await login('admin', TEST_PASSWORD), '401')
        const token = await login('dana', 'another passphrase')
        const books = async () => (await fetch(`${server.url}/users`, { headers: { authorization: token } })).status
        assert.equal(await books(), 200)
        assert.equal((await user(['add', 'frank', '--role', 'admin', '--password-stdin'], ACCOUNT_PASSWORD)).code, 0)
        assert.notEqual(await login('frank', ACCOUNT_PASSWORD), '401')
        const demoted = await user(['set-role', 'dana', 'reader'])
        assert.equal(demoted.code, 0, demoted.stderr)
        await eventually('the demoted account\'s token to be refused', async () => (await books()) === 401, 5000)
        const reader = await login('dana', 'another passphrase')
        assert.equal((await fetch(`${server.url}/users`, { headers: { authorization: reader } })).status, 403)
        assert.equal((await user(['remove', 'dana'])).code, 0)
        await eventually('the removed account\'s token to be refused', async () => (await fetch(`${server.url}/books`, { headers: { authorization: reader } })).status === 401, 5000)
      } finally {
        assert.equal(await server.stop(), 0)
      }
    })
  })
}
