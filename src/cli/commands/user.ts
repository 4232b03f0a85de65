import { createInterface } from 'node:readline'
import { Writable } from 'node:stream'
import { Command } from 'commander'
import type { TSchema } from 'typebox'
import Value from 'typebox/value'
import { Password, RoleName, Username, USERNAME_RULE, type Role } from '../../account/schema.js'
import { hashPassword } from '../../auth/password.js'
import { Messages } from '../../http/messages.js'
import { LAST_ADMIN, type AccountStore } from '../../storage/contracts/account-store.js'
import { openAccounts } from '../../storage/open.js'
import { configOrExit, fail, openOrExit } from '../exit.js'
import { CONFIGURATION_HELP } from '../help.js'
import { printListing, type Listing } from '../table.js'

/** How `user list` lists accounts (cli/table.ts). */
const accountListing: Listing<{ username: string; role: string; created_at: string; updated_at: string }> = {
  columns: [
    { header: 'USERNAME', cell: (account) => account.username },
    { header: 'ROLE', cell: (account) => account.role },
    { header: 'CREATED_AT', cell: (account) => account.created_at },
    { header: 'UPDATED_AT', cell: (account) => account.updated_at }
  ],
  json: ({ username, role, created_at, updated_at }) => ({ username, role, created_at, updated_at })
}

/**
 * Runs `work` on the accounts of the configured database (the same file or PostgreSQL database
 * the service uses, running or not), then closes it. Exits 1 with one line when the storage
 * cannot be opened or `work` fails.
 */
async function withAccounts(work: (accounts: AccountStore) => Promise<void>): Promise<void> {
  const config = configOrExit()
  const opened = await openOrExit('cannot open the storage at DATABASE_URL', () => openAccounts(config))
  try {
    await work(opened.accounts)
  } finally {
    await opened.close()
  }
}

/** Exits 1 with `what` unless `value` matches `schema`. */
function check(schema: TSchema, value: unknown, what: string): void {
  if (!Value.Check(schema, value)) fail(what)
}

/** Reads one line from the terminal without echoing it (the prompt goes to stderr). */
function promptHidden(question: string): Promise<string> {
  let muted = false
  const output = new Writable({
    write(chunk, _encoding, done) {
      if (!muted) process.stderr.write(chunk)
      done()
    }
  })
  const reader = createInterface({ input: process.stdin, output, terminal: true })
  return new Promise((resolve) => {
    reader.question(question, (answer) => {
      reader.close()
      process.stderr.write('\n')
      resolve(answer)
    })
    muted = true
  })
}

/** Everything on standard input, without one trailing line break. */
async function readStdin(): Promise<string> {
  const chunks: Buffer[] = []
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '')
}

/**
 * The new password of `user add` / `user passwd`: from standard input with `--password-stdin`,
 * else asked twice on the terminal without echo. Exits 1 when there is no terminal to ask on,
 * the two differ, or it is not 12 to 1024 characters.
 */
async function newPassword(options: { passwordStdin?: boolean }): Promise<string> {
  let password: string
  if (options.passwordStdin) {
    password = await readStdin()
  } else if (process.stdin.isTTY) {
    password = await promptHidden('New password: ')
    if ((await promptHidden('Repeat it: ')) !== password) fail('the two passwords differ')
  } else {
    fail('no terminal to ask for the password on: give it on standard input with --password-stdin')
  }
  check(Password, password, 'the password must be 12 to 1024 characters')
  return password
}

const roleText = 'reader, editor or admin'

/** Exits 1 unless `role` is a role. */
function roleOrExit(role: string): Role {
  check(RoleName, role, `the role must be ${roleText} (got "${role}")`)
  return role as Role
}

/** Turns a refused update or removal into its one-line message and exit 1. */
function refused(outcome: string): never {
  fail(outcome === 'missing' ? Messages.userNotFound : outcome === LAST_ADMIN ? Messages.lastAdmin : outcome)
}

/**
 * `book-service user …` (docs/accounts.md "Accounts and roles"): `add NAME --role ROLE [--password-stdin]`,
 * `list`, `set-role NAME ROLE`, `passwd NAME [--password-stdin]`, `remove NAME`. Each works on the
 * configured database directly, whether the service runs or not; a running service (every instance)
 * refuses the changed account's earlier tokens within 5 seconds. Messages go to stderr, `list`
 * prints to stdout; failures exit 1 with one line.
 */
export function userCommand(): Command {
  const user = new Command('user')
    .description('manage accounts in the configured database (the service may be running or not)')
    .addHelpText('after', CONFIGURATION_HELP)

  user
    .command('add <name>')
    .description('create an account; the password is asked without echo, or read from stdin with --password-stdin')
    .requiredOption('--role <role>', roleText)
    .option('--password-stdin', 'read the password from standard input')
    .action(async (name: string, options: { role: string; passwordStdin?: boolean }) => {
      check(Username, name, `the username must be ${USERNAME_RULE}`)
      const role = roleOrExit(options.role)
      const passwordHash = await hashPassword(await newPassword(options))
      await withAccounts(async (accounts) => {
        if ((await accounts.create({ username: name, passwordHash, role })) === 'exists') fail(Messages.userExists)
        process.stderr.write(`book-service: created user "${name}" with role ${role}\n`)
      })
    })

  user
    .command('list')
    .description('print every account: username, role, created_at, updated_at (a table; --json: one JSON object per line)')
    .option('--json', 'one JSON object per line, as GET /users gives each account')
    .action((options: { json?: boolean }) =>
      withAccounts(async (accounts) => printListing(accountListing, await accounts.list(), options.json))
    )

  user
    .command('set-role <name> <role>')
    .description(`change the role of an account (${roleText}); its earlier tokens stop working`)
    .action((name: string, role: string) => {
      const newRole = roleOrExit(role)
      return withAccounts(async (accounts) => {
        const outcome = await accounts.update(name, { role: newRole })
        if (typeof outcome === 'string') refused(outcome)
        process.stderr.write(`book-service: user "${outcome.username}" now has role ${outcome.role}\n`)
      })
    })

  user
    .command('passwd <name>')
    .description('change the password of an account; its earlier tokens stop working')
    .option('--password-stdin', 'read the password from standard input')
    .action(async (name: string, options: { passwordStdin?: boolean }) => {
      const passwordHash = await hashPassword(await newPassword(options))
      await withAccounts(async (accounts) => {
        const outcome = await accounts.update(name, { passwordHash })
        if (typeof outcome === 'string') refused(outcome)
        process.stderr.write(`book-service: changed the password of user "${outcome.username}"\n`)
      })
    })

  user
    .command('remove <name>')
    .description('delete an account; its tokens stop working')
    .action((name: string) =>
      withAccounts(async (accounts) => {
        const outcome = await accounts.delete(name)
        if (outcome !== 'deleted') refused(outcome)
        process.stderr.write(`book-service: removed user "${name}"\n`)
      })
    )

  return user
}
