import type { ChangeOperation } from '../contracts/change-log.js'
import type { Engine } from '../contracts/engine.js'
import type {
  DeliveryOutcome, DeliveryPosition, DeliveryRecord, DeliveryStatus, EndpointChange, EndpointSeq, NewEndpoint, WebhookEndpoint, WebhookStore
} from '../contracts/webhook-store.js'
import { placeholders } from './book-statements.js'

/**
 * How an engine runs the statements of {@link SqlWebhookStore}: rows of a query, rows changed by
 * a write, and several writes in one transaction.
 */
export interface WebhookSqlRunner {
  rows<R>(sql: string, values: readonly unknown[]): Promise<R[]>
  changes(sql: string, values: readonly unknown[]): Promise<number>
  /** Runs the statements in one transaction; returns each statement's rows. */
  atomically(statements: readonly { sql: string; values: readonly unknown[] }[]): Promise<unknown[][]>
}

type EndpointRow = {
  id: string; url: string; events: string; description: string | null; enabled: number | boolean; disabled_reason: string | null
  secret: string; previous_secret: string | null; previous_secret_until: number | string | null; created_at: string
  position: number | string; revision: number; replays: number
}

type DeliveryRow = {
  id: number | string; endpoint_id: string; seq: number | string; event: string; webhook_id: string; attempt: number; status: string
  http_status: number | null; error: string | null; at: number | string; next_attempt_at: number | string | null
}

const ENDPOINT_COLUMNS = 'id, url, events, description, enabled, disabled_reason, secret, previous_secret, previous_secret_until, created_at, position, revision, replays'
const DELIVERY_COLUMNS = 'id, endpoint_id, seq, event, webhook_id, attempt, status, http_status, error, at, next_attempt_at'
const nullableNumber = (value: number | string | null): number | null => (value === null ? null : Number(value))

function endpointOf(row: EndpointRow): WebhookEndpoint {
  return {
    id: row.id, url: row.url, events: JSON.parse(row.events) as ChangeOperation[], description: row.description,
    enabled: row.enabled === true || Number(row.enabled) === 1, disabledReason: row.disabled_reason, secret: row.secret,
    previousSecret: row.previous_secret, previousSecretUntil: nullableNumber(row.previous_secret_until), createdAt: row.created_at,
    seq: Number(row.position), revision: Number(row.revision), replays: Number(row.replays)
  }
}

function deliveryOf(row: DeliveryRow): DeliveryRecord {
  return {
    id: Number(row.id), endpointId: row.endpoint_id, seq: Number(row.seq), event: row.event, webhookId: row.webhook_id, attempt: row.attempt,
    status: row.status as DeliveryStatus, httpStatus: row.http_status, error: row.error, at: Number(row.at), nextAttemptAt: nullableNumber(row.next_attempt_at)
  }
}

/** The columns of {@link EndpointChange} and how each is stored. */
const CHANGE_COLUMNS: Record<keyof EndpointChange, [string, (value: never) => unknown]> = {
  url: ['url', (value: string) => value],
  events: ['events', (value: readonly string[]) => JSON.stringify(value)],
  description: ['description', (value: string | null) => value],
  enabled: ['enabled', (value: boolean) => (value ? 1 : 0)],
  disabledReason: ['disabled_reason', (value: string | null) => value],
  secret: ['secret', (value: string) => value],
  previousSecret: ['previous_secret', (value: string | null) => value],
  previousSecretUntil: ['previous_secret_until', (value: number | null) => value],
  seq: ['position', (value: number) => value]
}

/** The {@link WebhookStore} of either engine over its {@link WebhookSqlRunner}: the same SQL but for the placeholders. */
export class SqlWebhookStore implements WebhookStore {
  constructor(
    private readonly run: WebhookSqlRunner,
    private readonly engine: Engine
  ) {}

  private marks(count: number): string[] {
    return placeholders(this.engine, count)
  }

  async create(endpoint: NewEndpoint): Promise<void> {
    const p = this.marks(13)
    await this.run.changes(`INSERT INTO webhook_endpoints (${ENDPOINT_COLUMNS}) VALUES (${p.join(', ')})`, [
      endpoint.id, endpoint.url, JSON.stringify(endpoint.events), endpoint.description, endpoint.enabled ? 1 : 0, endpoint.disabledReason,
      endpoint.secret, endpoint.previousSecret, endpoint.previousSecretUntil, endpoint.createdAt, endpoint.seq, 1, 0
    ])
  }

  async list(): Promise<WebhookEndpoint[]> {
    return (await this.run.rows<EndpointRow>(`SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints ORDER BY created_at, id`, [])).map(endpointOf)
  }

  async get(id: string): Promise<WebhookEndpoint | undefined> {
    const [row] = await this.run.rows<EndpointRow>(`SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE id = ${this.marks(1)[0]}`, [id])
    return row === undefined ? undefined : endpointOf(row)
  }

  async update(id: string, change: EndpointChange): Promise<WebhookEndpoint | undefined> {
    const entries = Object.entries(change).filter(([, value]) => value !== undefined) as [keyof EndpointChange, never][]
    const p = this.marks(entries.length + 1)
    const sets = entries.map(([key], index) => `${CHANGE_COLUMNS[key][0]} = ${p[index]}`)
    const values = entries.map(([key, value]) => CHANGE_COLUMNS[key][1](value))
    const changed = await this.run.changes(
      `UPDATE webhook_endpoints SET ${[...sets, 'revision = revision + 1'].join(', ')} WHERE id = ${p[entries.length]}`,
      [...values, id]
    )
    return changed === 0 ? undefined : this.get(id)
  }

  async replay(id: string, after: number, now: number): Promise<boolean> {
    const close = this.marks(4)
    const move = this.marks(2)
    const [, moved] = await this.run.atomically([
      {
        sql: `UPDATE webhook_deliveries SET status = 'failed', error = ${close[0]}, at = ${close[1]}, next_attempt_at = NULL WHERE endpoint_id = ${close[2]} AND seq > ${close[3]} AND status = 'pending'`,
        values: ['replaced by a replay', now, id, after]
      },
      { sql: `UPDATE webhook_endpoints SET position = ${move[0]}, revision = revision + 1, replays = replays + 1 WHERE id = ${move[1]} RETURNING id`, values: [after, id] }
    ])
    return (moved?.length ?? 0) > 0
  }

  async delete(id: string): Promise<boolean> {
    const [mark] = this.marks(1)
    const [, deleted] = await this.run.atomically([
      { sql: `DELETE FROM webhook_deliveries WHERE endpoint_id = ${mark}`, values: [id] },
      { sql: `DELETE FROM webhook_endpoints WHERE id = ${mark} RETURNING id`, values: [id] }
    ])
    return (deleted?.length ?? 0) > 0
  }

  async deliveries(endpointId: string, options: { before?: DeliveryPosition; limit: number; status?: DeliveryStatus }): Promise<DeliveryRecord[]> {
    const filtered = options.status !== undefined
    const p = this.marks(filtered ? 5 : 4)
    // A row comparison, so the index (endpoint_id[, status], seq, id) is read backwards from the cursor.
    const rows = await this.run.rows<DeliveryRow>(
      `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE endpoint_id = ${p[0]} AND (seq, id) < (${p[1]}, ${p[2]})` +
        `${filtered ? ` AND status = ${p[3]}` : ''} ORDER BY seq DESC, id DESC LIMIT ${p[filtered ? 4 : 3]}`,
      [endpointId, options.before?.seq ?? Number.MAX_SAFE_INTEGER, options.before?.id ?? Number.MAX_SAFE_INTEGER, ...(filtered ? [options.status] : []), options.limit]
    )
    return rows.map(deliveryOf)
  }

  async trim(before: number, limit: number): Promise<number> {
    const p = this.marks(2)
    // The oldest finished entries through the index on `at`; a pending one is still the dispatcher's.
    return this.run.changes(
      `DELETE FROM webhook_deliveries WHERE id IN (SELECT id FROM webhook_deliveries WHERE at < ${p[0]} AND status <> 'pending' ORDER BY at LIMIT ${p[1]})`,
      [before, limit]
    )
  }

  async pending(endpointId: string, seq: number): Promise<DeliveryRecord | undefined> {
    const p = this.marks(2)
    const [row] = await this.run.rows<DeliveryRow>(
      `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE endpoint_id = ${p[0]} AND seq > ${p[1]} AND status = 'pending' ORDER BY seq, id DESC LIMIT 1`,
      [endpointId, seq]
    )
    return row === undefined ? undefined : deliveryOf(row)
  }

  async record(outcomes: readonly DeliveryOutcome[], seqs: readonly EndpointSeq[]): Promise<number[]> {
    const insert = this.marks(10)
    const update = this.marks(7)
    const advance = this.marks(4)
    const statements = [
      ...outcomes.map((outcome) =>
        outcome.id === undefined
          ? {
              sql: `INSERT INTO webhook_deliveries (endpoint_id, seq, event, webhook_id, attempt, status, http_status, error, at, next_attempt_at) VALUES (${insert.join(', ')}) RETURNING id`,
              values: [outcome.endpointId, outcome.seq, outcome.event, outcome.webhookId, outcome.attempt, outcome.status, outcome.httpStatus, outcome.error, outcome.at, outcome.nextAttemptAt]
            }
          : {
              sql: `UPDATE webhook_deliveries SET attempt = ${update[0]}, status = ${update[1]}, http_status = ${update[2]}, error = ${update[3]}, at = ${update[4]}, next_attempt_at = ${update[5]} WHERE id = ${update[6]} RETURNING id`,
              values: [outcome.attempt, outcome.status, outcome.httpStatus, outcome.error, outcome.at, outcome.nextAttemptAt, outcome.id]
            }
      ),
      ...seqs.map(({ id, replays, seq }) => ({
        sql: `UPDATE webhook_endpoints SET position = ${advance[0]} WHERE id = ${advance[1]} AND replays = ${advance[2]} AND position < ${advance[3]}`,
        values: [seq, id, replays, seq]
      }))
    ]
    if (statements.length === 0) return []
    const results = await this.run.atomically(statements)
    return outcomes.map((outcome, index) => Number((results[index]?.[0] as { id: number | string } | undefined)?.id ?? outcome.id ?? 0))
  }

  async disable(id: string, revision: number, reason: string): Promise<void> {
    const p = this.marks(3)
    await this.run.changes(
      `UPDATE webhook_endpoints SET enabled = 0, disabled_reason = ${p[0]}, revision = revision + 1 WHERE id = ${p[1]} AND revision = ${p[2]}`,
      [reason, id, revision]
    )
  }

  async takeLease(holder: string, now: number, ttlMs: number): Promise<boolean> {
    const p = this.marks(4)
    const changed = await this.run.changes(
      `UPDATE webhook_dispatcher_lease SET holder = ${p[0]}, expires_at = ${p[1]} WHERE name = 'dispatcher' AND (holder = ${p[2]} OR expires_at < ${p[3]})`,
      [holder, now + ttlMs, holder, now]
    )
    return changed === 1
  }

  async releaseLease(holder: string): Promise<void> {
    await this.run.changes(`UPDATE webhook_dispatcher_lease SET expires_at = 0 WHERE name = 'dispatcher' AND holder = ${this.marks(1)[0]}`, [holder])
  }
}
