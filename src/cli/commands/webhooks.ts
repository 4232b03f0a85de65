import { Command } from 'commander'
import Value from 'typebox/value'
import { Messages } from '../../http/messages.js'
import type { ChangeOperation } from '../../storage/contracts/change-log.js'
import { openWebhooks, type OpenedWebhooks } from '../../storage/open.js'
import { urlRefusal } from '../../webhooks/address-policy.js'
import { newEndpoint, webhookView } from '../../webhooks/endpoint.js'
import { WebhookInput } from '../../webhooks/schema.js'
import { configOrExit, fail, openOrExit } from '../exit.js'
import { CONFIGURATION_HELP } from '../help.js'

/** Runs `work` on the webhooks of the configured database, then closes it; exits 1 with one line when it cannot be opened. */
async function withWebhooks(work: (opened: OpenedWebhooks, allowPrivate: boolean) => Promise<void>): Promise<void> {
  const config = configOrExit()
  const opened = await openOrExit('cannot open the storage at DATABASE_URL', () => openWebhooks(config))
  try {
    await work(opened, config.WEBHOOK_ALLOW_PRIVATE)
  } finally {
    await opened.close()
  }
}

/**
 * `book-service webhooks …` (docs/webhooks.md "Command line"): `list`, `add URL [--events LIST]
 * [--description TEXT]` (prints the endpoint with its secret, shown this once, as JSON on
 * stdout), `remove ID`, `deliveries ID [--limit N] [--status S]`. Each works on the configured
 * database directly, whether the service runs or not; the running dispatcher sees a change within
 * a second. Failures exit 1 with one line on stderr.
 */
export function webhooksCommand(): Command {
  const webhooks = new Command('webhooks')
    .description('manage webhook endpoints in the configured database (the service may be running or not)')
    .addHelpText('after', CONFIGURATION_HELP)

  webhooks
    .command('list')
    .description('print every endpoint: id, enabled, events, url, disabled_reason (tab-separated)')
    .action(() =>
      withWebhooks(async ({ webhooks: store }) => {
        const lines = (await store.list()).map((endpoint) =>
          [endpoint.id, endpoint.enabled, endpoint.events.join(','), endpoint.url, endpoint.enabled ? '' : (endpoint.disabledReason ?? '')].join('\t')
        )
        process.stdout.write(['id\tenabled\tevents\turl\tdisabled_reason', ...lines].join('\n') + '\n')
      })
    )

  webhooks
    .command('add <url>')
    .description('add an endpoint; prints it as JSON with its secret (shown only this once)')
    .option('--events <list>', 'comma-separated: created, updated, deleted (default all three)')
    .option('--description <text>', 'free text for the admins')
    .action((url: string, options: { events?: string; description?: string }) => {
      const input = {
        url,
        ...(options.events === undefined ? {} : { events: options.events.split(',').map((operation) => operation.trim()) as ChangeOperation[] }),
        ...(options.description === undefined ? {} : { description: options.description })
      }
      if (!Value.Check(WebhookInput, input)) fail('the url must be 1 to 2048 characters, --events a list of created, updated, deleted (each once)')
      return withWebhooks(async ({ webhooks: store, lastSeq }, allowPrivate) => {
        const refusal = await urlRefusal(url, allowPrivate)
        if (refusal !== undefined) fail(`${Messages.invalidInput}: ${refusal}${allowPrivate ? '' : ' (WEBHOOK_ALLOW_PRIVATE=true permits private addresses)'}`)
        const endpoint = newEndpoint(input, await lastSeq())
        await store.create(endpoint)
        process.stdout.write(JSON.stringify({ ...webhookView(endpoint), secret: endpoint.secret }) + '\n')
      })
    })

  webhooks
    .command('remove <id>')
    .description('remove an endpoint and its delivery log')
    .action((id: string) =>
      withWebhooks(async ({ webhooks: store }) => {
        if (!(await store.delete(id))) fail(Messages.webhookNotFound)
        process.stderr.write(`book-service: removed webhook ${id}\n`)
      })
    )

  webhooks
    .command('deliveries <id>')
    .description('print the delivery log of an endpoint, newest first: id, seq, event, attempt, status, http_status, at, error (tab-separated)')
    .option('--limit <n>', 'how many (1 to 1000)', '50')
    .option('--status <status>', 'pending, succeeded or failed')
    .action((id: string, options: { limit: string; status?: string }) => {
      const limit = Number(options.limit)
      if (!Number.isInteger(limit) || limit < 1 || limit > 1000) fail(`--limit must be an integer from 1 to 1000 (got "${options.limit}")`)
      const status = options.status
      if (status !== undefined && status !== 'pending' && status !== 'succeeded' && status !== 'failed') {
        fail(`--status must be pending, succeeded or failed (got "${status}")`)
      }
      return withWebhooks(async ({ webhooks: store }) => {
        if ((await store.get(id)) === undefined) fail(Messages.webhookNotFound)
        const rows = await store.deliveries(id, { limit, status })
        const lines = rows.map((row) =>
          [row.id, row.seq, row.event, row.attempt, row.status, row.httpStatus ?? '', new Date(row.at).toISOString(), row.error ?? ''].join('\t')
        )
        process.stdout.write(['id\tseq\tevent\tattempt\tstatus\thttp_status\tat\terror', ...lines].join('\n') + '\n')
      })
    })

  return webhooks
}
