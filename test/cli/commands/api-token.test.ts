import assert from 'node:assert/strict'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { createVerifier } from 'fast-jwt'
import { TEST_SECRET } from '../../support/app.js'
import { ACCOUNT_PASSWORD } from '../../support/accounts.js'
import { runCli } from '../../support/cli.js'
import { removeDirectory, startServer, temporaryDirectory } from '../../support/server.js'
import { processSkipReason } from '../../support/scope.js'

const decode = (token: string) => createVerifier({ key: TEST_SECRET, algorithms: ['HS256'] })(token) as Record<string, unknown>

describe('book-service api-token create|list|revoke (the built CLI)', { skip: processSkipReason }, () => {
  let directory: string
  let env: Record<string, string>
  before(async () => {
    directory = temporaryDirectory()
    env = { DATABASE_URL: join(directory, 'books.db'), SECRET_TOKEN: TEST_SECRET }
    const added = await runCli(['user', 'add', 'alice', '--role', 'editor', '--password-stdin'], { cwd: directory, env, input: `${ACCOUNT_PASSWORD}\n` })
    assert.equal(added.code, 0, added.stderr)
  })
  after(() => removeDirectory(directory))

  test('create refuses what POST /tokens refuses, each with one line', async () => {
    const refusals: Array<[string[], RegExp]> = [
      [['create', 'nobody', '--name', 'sync'], /^book-service: User not found\n$/],
      [['create', 'alice', '--name', 'sync', '--role', 'admin'], /^book-service: the role admin is above the account's role \(editor\)\n$/],
      [['create', 'alice', '--name', 'sync', '--role', 'root'], /^book-service: the role must be reader, editor or admin/],
      [['create', 'alice', '--name', 'sync', '--expires-in-days', '0'], /--expires-in-days must be a whole number from 1 to 3650 \(got "0"\)/],
      [['create', 'alice', '--name', 'sync', '--expires-in-days', '30.5'], /--expires-in-days must be a whole number/],
      [['create', 'alice', '--name', ''], /the name must be 1 to 100 characters/],
      [['create', 'alice', '--name', 'x'.repeat(101)], /the name must be 1 to 100 characters/],
      [['create', 'alice'], /required option '--name <text>' not specified/]
    ]
    for (const [args, message] of refusals) {
      const run = await runCli(['api-token', ...args], { cwd: directory, env })
      assert.equal(run.code, 1, args.join(' '))
      assert.equal(run.stdout, '')
      assert.match(run.stderr, message, args.join(' '))
    }
    assert.equal((await runCli(['api-token', 'list'], { cwd: directory, env })).stdout.trim().split('\n').length, 1, 'nothing was created')
  })

  test('create prints the token alone; it works on the running service, list shows its use, revoke stops it within 1 s', async () => {
    const created = await runCli(['api-token', 'create', 'ALICE', '--name', 'catalogue sync', '--role', 'reader', '--expires-in-days', '30'], { cwd: directory, env })
    assert.equal(created.code, 0, created.stderr)
    const token = created.stdout.trim()
    assert.equal(created.stdout, `${token}\n`)
    const claims = decode(token)
    assert.deepEqual([claims.sub, claims.role, claims.exp], ['alice', 'reader', (claims.iat as number) + 30 * 86_400])
    const id = claims.jti as string
    assert.match(created.stderr, new RegExp(`^book-service: created API token ${id} "catalogue sync" with role reader, expiring at \\d{4}-`))

    const server = await startServer({ dataDirectory: directory, env })
    try {
      const books = async () => (await fetch(`${server.url}/books`, { headers: { authorization: `Bearer ${token}` } })).status
      assert.equal(await books(), 200)
      let listed = ''
      for (let tries = 0; tries < 50 && !/"last_used_at":"\d{4}-/.test(listed); tries++) {
        await new Promise((resolve) => setTimeout(resolve, 50))
        listed = (await runCli(['api-token', 'list', '--user', 'alice', '--json'], { cwd: directory, env })).stdout
      }
      const views = listed.trimEnd().split('\n').map((line) => JSON.parse(line) as Record<string, string>)
      assert.equal(views.length, 1)
      const view = views[0]!
      assert.deepEqual([view.id, view.username, view.name, view.role], [id, 'alice', 'catalogue sync', 'reader'])
      assert.equal(view.expires_at, new Date((claims.exp as number) * 1000).toISOString())
      assert.ok(Date.parse(view.last_used_at!) >= Date.parse(view.created_at!), `last used: ${view.last_used_at}`)
      const table = (await runCli(['api-token', 'list', '--user', 'alice'], { cwd: directory, env })).stdout
      assert.match(table, /^ID +USERNAME +NAME +ROLE +CREATED_AT +EXPIRES_AT +LAST_USED_AT\n/)
      assert.match(table, new RegExp(`^${id} +alice +catalogue sync +reader +\\S+Z +\\S+Z +\\S+Z$`, 'm'))

      const revoked = await runCli(['api-token', 'revoke', id], { cwd: directory, env })
      const revokedAt = Date.now()
      assert.deepEqual([revoked.code, revoked.stderr], [0, `book-service: revoked API token ${id}\n`])
      let status = await books()
      while (status === 200 && Date.now() - revokedAt < 1000) status = await books()
      assert.equal(status, 401)
    } finally {
      assert.equal(await server.stop(), 0)
    }
    const again = await runCli(['api-token', 'revoke', id], { cwd: directory, env })
    assert.deepEqual([again.code, again.stderr], [1, 'book-service: Token not found\n'])
  })

  test('removing the account removes its tokens', async () => {
    const created = await runCli(['api-token', 'create', 'alice', '--name', 'short-lived'], { cwd: directory, env })
    assert.equal(created.code, 0, created.stderr)
    assert.match(created.stderr, /with role editor, never expiring\n$/)
    assert.match((await runCli(['api-token', 'list'], { cwd: directory, env })).stdout, / +alice +short-lived +editor +\S+Z\n$/)
    assert.equal((await runCli(['user', 'remove', 'alice'], { cwd: directory, env })).code, 0)
    assert.equal((await runCli(['api-token', 'list'], { cwd: directory, env })).stdout, 'ID  USERNAME  NAME  ROLE  CREATED_AT  EXPIRES_AT  LAST_USED_AT\n')
    assert.equal((await runCli(['api-token', 'list', '--json'], { cwd: directory, env })).stdout, '')
  })
})
