import { Command } from 'commander'
import Value from 'typebox/value'
import { ApiTokenInput, TOKEN_DAYS } from '../../account/api-token-schema.js'
import { outranks } from '../../account/roles.js'
import { apiTokenView, issueApiToken } from '../../auth/api-tokens.js'
import { createApiTokenSigner } from '../../auth/tokens.js'
import { Messages } from '../../http/messages.js'
import { openAccounts, type OpenedAccounts } from '../../storage/open.js'
import { configOrExit, fail, openOrExit, secretOrExit } from '../exit.js'
import { CONFIGURATION_HELP } from '../help.js'
import { printListing, type Listing } from '../table.js'

/** How `api-token list` lists tokens (cli/table.ts): an empty cell for a token that never expires or was never used. */
const apiTokenListing: Listing<ReturnType<typeof apiTokenView>> = {
  columns: [
    { header: 'ID', cell: (view) => view.id },
    { header: 'USERNAME', cell: (view) => view.username ?? '' },
    { header: 'NAME', cell: (view) => view.name },
    { header: 'ROLE', cell: (view) => view.role },
    { header: 'CREATED_AT', cell: (view) => view.created_at },
    { header: 'EXPIRES_AT', cell: (view) => view.expires_at ?? '' },
    { header: 'LAST_USED_AT', cell: (view) => view.last_used_at ?? '' }
  ],
  json: (view) => view
}

/** Runs `work` on the accounts and API tokens of the configured database, then closes it; exits 1 with one line when it cannot be opened. */
async function withApiTokens(work: (opened: OpenedAccounts) => Promise<void>): Promise<void> {
  const opened = await openOrExit('cannot open the storage at DATABASE_URL', () => openAccounts(configOrExit()))
  try {
    await work(opened)
  } finally {
    await opened.close()
  }
}

/**
 * The options of `api-token create` as the body of `POST /tokens`, each checked by that body's
 * schema; exits 1 with one line on a bad one.
 */
function checkedInput(options: { name: string; role?: string; expiresInDays?: string }): ApiTokenInput {
  const days = options.expiresInDays
  const input = {
    name: options.name,
    ...(options.role === undefined ? {} : { role: options.role }),
    ...(days === undefined ? {} : { expires_in_days: /^[0-9]+$/.test(days) ? Number(days) : Number.NaN })
  }
  const rules: Record<string, string> = {
    name: 'the name must be 1 to 100 characters, without control characters',
    role: `the role must be reader, editor or admin (got "${options.role}")`,
    expires_in_days: `--expires-in-days must be a whole number from ${TOKEN_DAYS.min} to ${TOKEN_DAYS.max} (got "${days}")`
  }
  for (const [field, value] of Object.entries(input)) {
    if (!Value.Check(ApiTokenInput.properties[field as keyof ApiTokenInput], value)) fail(rules[field]!)
  }
  return input as ApiTokenInput
}

/**
 * `book-service api-token …` (docs/api-tokens.md "Command line"): `create USERNAME --name TEXT
 * [--role ROLE] [--expires-in-days N]` (prints the token alone on stdout, shown this once),
 * `list [--user USERNAME]` (tab-separated, newest first), `revoke ID`. Each works on the
 * configured database directly, whether the service runs or not; a running service (every
 * instance) refuses a revoked token within 1 s. `create` signs with the configured secret, as the
 * service does. Messages go to stderr; failures exit 1 with one line.
 */
export function apiTokenCommand(): Command {
  const apiToken = new Command('api-token')
    .description('manage the API tokens of accounts in the configured database (the service may be running or not)')
    .addHelpText('after', CONFIGURATION_HELP)

  apiToken
    .command('create <username>')
    .description('create an API token of an account; prints the token alone on stdout (shown only this once)')
    .requiredOption('--name <text>', 'what the token is for (1 to 100 characters)')
    .option('--role <role>', 'reader, editor or admin, no higher than the account\'s (default: the account\'s role)')
    .option('--expires-in-days <days>', `days until it expires, ${TOKEN_DAYS.min} to ${TOKEN_DAYS.max} (default: never)`)
    .action((username: string, options: { name: string; role?: string; expiresInDays?: string }) => {
      const input = checkedInput(options)
      const config = configOrExit()
      const sign = createApiTokenSigner(secretOrExit(config))
      return withApiTokens(async ({ accounts, apiTokens }) => {
        const account = await accounts.generation(username)
        if (account === undefined) fail(Messages.userNotFound)
        const role = input.role ?? account.role
        if (outranks(role, account.role)) fail(`the role ${role} is above the account's role (${account.role})`)
        const created = await issueApiToken({ username, name: input.name, role, expiresInDays: input.expires_in_days }, apiTokens, sign)
        if (created === 'missing') fail(Messages.userNotFound)
        process.stdout.write(`${created.token}\n`)
        process.stderr.write(
          `book-service: created API token ${created.id} "${created.name}" with role ${created.role}, ` +
            `${created.expires_at === null ? 'never expiring' : `expiring at ${created.expires_at}`}\n`
        )
      })
    })

  apiToken
    .command('list')
    .description('print the API tokens, newest first: id, username, name, role, created_at, expires_at, last_used_at (a table; --json: one JSON object per line)')
    .option('--user <username>', 'only this account\'s tokens')
    .option('--json', 'one JSON object per line, as GET /tokens gives each token')
    .action((options: { user?: string; json?: boolean }) =>
      withApiTokens(async ({ apiTokens }) =>
        printListing(apiTokenListing, (await apiTokens.list(options.user)).map((token) => apiTokenView(token, true)), options.json)
      )
    )

  apiToken
    .command('revoke <id>')
    .description('revoke an API token: every running instance refuses it within 1 s')
    .action((id: string) =>
      withApiTokens(async ({ apiTokens }) => {
        if (!(await apiTokens.revoke(id))) fail(Messages.tokenNotFound)
        process.stderr.write(`book-service: revoked API token ${id}\n`)
      })
    )

  return apiToken
}
