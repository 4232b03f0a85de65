import { Command } from 'commander'
import Value from 'typebox/value'
import { Messages } from '../../http/messages.js'
import type { ChangeOperation } from '../../storage/contracts/change-log.js'
import type { DeliveryRecord } from '../../storage/contracts/webhook-store.js'
import { openWebhooks, type OpenedWebhooks } from '../../storage/open.js'
import { urlRefusal } from '../../webhooks/address-policy.js'
import { newEndpoint, webhookView } from '../../webhooks/endpoint.js'
import { WebhookInput, type CreatedWebhook, type Webhook } from '../../webhooks/schema.js'
import { configOrExit, fail, openOrExit } from '../exit.js'
import { CONFIGURATION_HELP } from '../help.js'
import { printListing, type Listing } from '../table.js'

/** How `webhooks list` lists endpoints (cli/table.ts); the reason shows only for a disabled one. */
const webhookListing: Listing<Webhook> = {
  columns: [
    { header: 'ID', cell: (endpoint) => endpoint.id },
    { header: 'ENABLED', cell: (endpoint) => String(endpoint.enabled) },
    { header: 'EVENTS', cell: (endpoint) => endpoint.events.join(',') },
    { header: 'URL', cell: (endpoint) => endpoint.url },
    { header: 'DISABLED_REASON', cell: (endpoint) => (endpoint.enabled ? '' : (endpoint.disabled_reason ?? '')) }
  ],
  json: (endpoint) => endpoint
}

/** How `webhooks add` shows the endpoint it made, with its secret (shown this once). */
const createdWebhookListing: Listing<CreatedWebhook> = {
  columns: [...webhookListing.columns.slice(0, 4), { header: 'SECRET', cell: (endpoint) => endpoint.secret }],
  json: (endpoint) => endpoint
}

/** How `webhooks deliveries` lists a delivery log, with the API's field names under `--json`. */
const deliveryListing: Listing<DeliveryRecord> = {
  columns: [
    { header: 'ID', cell: (row) => String(row.id) },
    { header: 'SEQ', cell: (row) => String(row.seq) },
    { header: 'EVENT', cell: (row) => row.event },
    { header: 'ATTEMPT', cell: (row) => String(row.attempt) },
    { header: 'STATUS', cell: (row) => row.status },
    { header: 'HTTP_STATUS', cell: (row) => (row.httpStatus === null ? '' : String(row.httpStatus)) },
    { header: 'AT', cell: (row) => new Date(row.at).toISOString() },
    { header: 'ERROR', cell: (row) => row.error ?? '' }
  ],
  json: (row) => ({
    id: row.id,
    seq: row.seq,
    event: row.event,
    attempt: row.attempt,
    status: row.status,
    http_status: row.httpStatus,
    error: row.error,
    at: new Date(row.at).toISOString(),
    next_attempt_at: row.nextAttemptAt === null ? null : new Date(row.nextAttemptAt).toISOString()
  })
}

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
    .description('print every endpoint: id, enabled, events, url, disabled_reason (a table; --json: one JSON object per line)')
    .option('--json', 'one JSON object per line, as GET /webhooks gives each endpoint')
    .action((options: { json?: boolean }) =>
      withWebhooks(async ({ webhooks: store }) => printListing(webhookListing, (await store.list()).map(webhookView), options.json))
    )

  webhooks
    .command('add <url>')
    .description('add an endpoint; prints it with its secret, shown only this once (a table; --json: one JSON object)')
    .option('--events <list>', 'comma-separated: created, updated, deleted (default all three)')
    .option('--description <text>', 'free text for the admins')
    .option('--json', 'one JSON object, as POST /webhooks answers')
    .action((url: string, options: { events?: string; description?: string; json?: boolean }) => {
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
        printListing(createdWebhookListing, [{ ...webhookView(endpoint), secret: endpoint.secret }], options.json)
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
    .description('print the delivery log of an endpoint, newest first: id, seq, event, attempt, status, http_status, at, error (a table; --json: one JSON object per line)')
    .option('--limit <n>', 'how many (1 to 1000)', '50')
    .option('--status <status>', 'pending, succeeded or failed')
    .option('--json', 'one JSON object per line, as GET /webhooks/{id}/deliveries gives each delivery')
    .action((id: string, options: { limit: string; status?: string; json?: boolean }) => {
      const limit = Number(options.limit)
      if (!Number.isInteger(limit) || limit < 1 || limit > 1000) fail(`--limit must be an integer from 1 to 1000 (got "${options.limit}")`)
      const status = options.status
      if (status !== undefined && status !== 'pending' && status !== 'succeeded' && status !== 'failed') {
        fail(`--status must be pending, succeeded or failed (got "${status}")`)
      }
      return withWebhooks(async ({ webhooks: store }) => {
        if ((await store.get(id)) === undefined) fail(Messages.webhookNotFound)
        printListing(deliveryListing, await store.deliveries(id, { limit, status }), options.json)
      })
    })

  return webhooks
}
