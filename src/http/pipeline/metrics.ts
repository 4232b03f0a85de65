import type { FastifyInstance } from 'fastify'
import type { Registry } from 'prom-client'
import type { ChangeLog } from '../../storage/contracts/change-log.js'
import type { ReadReplicas } from '../../storage/contracts/read-replicas.js'
import { inClusterWorker, reportToPrimary, serviceMetrics } from './cluster-metrics.js'

/*
 * The change feed and the webhook dispatcher hand /metrics what it reads of them through the two
 * interfaces below (app.ts passes them in), so the HTTP layer depends on no service.
 */

/** What /metrics reads of the change feed (src/feed/change-feed.ts). */
export interface FeedMetricsSource {
  /** Streams open now. */
  readonly subscribers: number
  readonly counters: {
    /** Change events written to subscribers. */
    readonly eventsSent: number
    /** Subscribers dropped for not keeping up. */
    readonly dropped: number
  }
}

/** What /metrics reads of the webhook dispatcher (src/webhooks/dispatcher.ts). */
export interface WebhookMetricsSource {
  readonly counters: {
    /** Attempts answered 2xx. */
    readonly succeeded: number
    /** Attempts that failed and will be retried. */
    readonly failed: number
    /** Deliveries given up. */
    readonly givenUp: number
  }
  /** Each enabled endpoint's lag: changes not yet delivered, and the oldest one's age in seconds. */
  lags(): { readonly endpointId: string; readonly changes: number; readonly seconds: number }[]
}

/** Where the metrics are served. */
export const METRICS_PATH = '/metrics'

/** Upper bounds, in seconds, of the request latency histogram's buckets. */
const LATENCY_BUCKETS_SECONDS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

/** The `route` label of requests that matched no route, so unknown paths cannot grow the label set. */
const UNMATCHED_ROUTE = 'unmatched'

let processRegistry: Registry | undefined

/**
 * Process metrics (CPU, memory, event loop lag, GC, handles), collected once per process
 * however many apps it builds (tests build many).
 */
function processMetrics({ Registry, collectDefaultMetrics }: typeof import('prom-client')): Registry {
  if (!processRegistry) {
    processRegistry = new Registry()
    collectDefaultMetrics({ register: processRegistry })
  }
  return processRegistry
}

/**
 * Adds Prometheus metrics to `app` (call it before the routes are added): every response is
 * counted in `http_requests_total` and timed in `http_request_duration_seconds`, both labelled by
 * `method`, `route` (the route pattern such as `/book/:id`, or `unmatched`) and `status_code`;
 * the change feed's `feed_subscribers` (gauge), `feed_events_sent_total` and `feed_dropped_total`
 * (subscribers dropped for not keeping up) are read from `feed` when scraped, the change
 * log's numbering lag (`change_log_unnumbered`, `change_log_unnumbered_oldest_seconds`: README
 * "Change log") from `changes`; the webhooks'
 * `webhook_deliveries_total` (attempts by `outcome`: `succeeded`, `failed` then retried,
 * `given_up`), `webhook_lag_changes` and `webhook_lag_seconds` (per `endpoint`) from `webhooks`;
 * with read replicas, `book_reads_total` (by `server`: `primary` or `replica`) and
 * `replica_fallbacks_total` from `replicas`;
 * `GET /metrics` serves them with the process metrics in the Prometheus text format
 * (`text/plain; version=0.0.4`); in a worker of `WORKERS` > 1, those of every worker together
 * (cluster-metrics.ts). Not behind auth: operators restrict it at the network.
 * prom-client is imported here, so a start with `METRICS_ENABLED=false` never loads it.
 */
export async function registerMetrics(
  app: FastifyInstance,
  feed: FeedMetricsSource,
  changes?: ChangeLog,
  webhooks?: WebhookMetricsSource,
  replicas?: ReadReplicas
): Promise<void> {
  // The CommonJS exports object: what Node and the bundle (scripts/bundle.ts) both give as `default`.
  const promClient = (await import('prom-client')).default
  const { Counter, Gauge, Histogram, Registry } = promClient
  const registry = new Registry()
  const labelNames = ['method', 'route', 'status_code'] as const
  const requests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests answered, by method, route pattern and status code.',
    labelNames,
    registers: [registry]
  })
  const latency = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time from receiving a request to sending its response, in seconds, by method, route pattern and status code.',
    labelNames,
    buckets: LATENCY_BUCKETS_SECONDS,
    registers: [registry]
  })

  new Gauge({
    name: 'feed_subscribers',
    help: 'Change feed streams (GET /books/changes) open now in this process.',
    registers: [registry],
    collect() {
      this.set(feed.subscribers)
    }
  })
  new Counter({
    name: 'feed_events_sent_total',
    help: 'Change feed events written to subscribers (each event counted once per subscriber).',
    registers: [registry],
    collect() {
      this.reset()
      this.inc(feed.counters.eventsSent)
    }
  })
  new Counter({
    name: 'feed_dropped_total',
    help: 'Change feed subscribers dropped because they fell FEED_BUFFER_BYTES behind.',
    registers: [registry],
    collect() {
      this.reset()
      this.inc(feed.counters.dropped)
    }
  })

  // One query per scrape, shared by both gauges; 0 where rows are numbered as they commit (SQLite).
  let lag: ReturnType<NonNullable<ChangeLog['numberingLag']>> | undefined
  const numberingLag = () => (lag ??= (changes?.numberingLag?.() ?? Promise.resolve({ waiting: 0, oldestAgeSeconds: 0 })).finally(() => setImmediate(() => (lag = undefined))))
  new Gauge({
    name: 'change_log_unnumbered',
    help: 'Committed changes waiting for their change-log number (PostgreSQL numbers them after commit).',
    registers: [registry],
    async collect() {
      this.set((await numberingLag().catch(() => ({ waiting: Number.NaN }))).waiting)
    }
  })
  new Gauge({
    name: 'change_log_unnumbered_oldest_seconds',
    help: 'Age in seconds of the oldest committed change waiting for its change-log number (0 when none waits).',
    registers: [registry],
    async collect() {
      this.set((await numberingLag().catch(() => ({ oldestAgeSeconds: Number.NaN }))).oldestAgeSeconds)
    }
  })
  if (replicas) {
    new Counter({
      name: 'book_reads_total',
      help: 'Book reads (point reads, lists, counts, searches, histories) and feed catch-up pages, by the server they were sent to: primary or replica (docs/several-instances.md "Read replicas").',
      labelNames: ['server'],
      registers: [registry],
      collect() {
        this.reset()
        this.inc({ server: 'primary' }, replicas.counters.primary)
        this.inc({ server: 'replica' }, replicas.counters.replica)
      }
    })
    new Counter({
      name: 'replica_fallbacks_total',
      help: 'Reads sent to a replica that failed them (unreachable, a recovery conflict) and that the primary answered instead.',
      registers: [registry],
      collect() {
        this.reset()
        this.inc(replicas.counters.fallbacks)
      }
    })
  }
  if (webhooks) {
    new Counter({
      name: 'webhook_deliveries_total',
      help: 'Webhook delivery attempts by outcome: succeeded (2xx), failed (retried later), given_up (410 or the retry schedule run out).',
      labelNames: ['outcome'],
      registers: [registry],
      collect() {
        this.reset()
        this.inc({ outcome: 'succeeded' }, webhooks.counters.succeeded)
        this.inc({ outcome: 'failed' }, webhooks.counters.failed)
        this.inc({ outcome: 'given_up' }, webhooks.counters.givenUp)
      }
    })
    new Gauge({
      name: 'webhook_lag_changes',
      help: 'Changes in the change log not yet delivered to each enabled webhook endpoint (reported by the process that sends).',
      labelNames: ['endpoint'],
      registers: [registry],
      collect() {
        this.reset()
        for (const lag of webhooks.lags()) this.set({ endpoint: lag.endpointId }, lag.changes)
      }
    })
    new Gauge({
      name: 'webhook_lag_seconds',
      help: 'Seconds since the oldest change not yet delivered to each enabled webhook endpoint was committed (0 when none waits).',
      labelNames: ['endpoint'],
      registers: [registry],
      collect() {
        this.reset()
        for (const lag of webhooks.lags()) this.set({ endpoint: lag.endpointId }, lag.seconds)
      }
    })
  }

  // Callback style: no promise per response.
  app.addHook('onResponse', (request, reply, done) => {
    const labels = {
      method: request.method,
      route: request.routeOptions.url ?? UNMATCHED_ROUTE,
      status_code: String(reply.statusCode)
    }
    requests.inc(labels)
    latency.observe(labels, reply.elapsedTime / 1000)
    done()
  })

  const everything = Registry.merge([processMetrics(promClient), registry])
  // In a worker of WORKERS > 1 the answer is every worker's metrics, gathered by the primary.
  const clustered = inClusterWorker()
  if (clustered) reportToPrimary(promClient, [processMetrics(promClient), registry])
  app.get(METRICS_PATH, { schema: { hide: true } }, async (_request, reply) => {
    return reply.type(everything.contentType).send(clustered ? await serviceMetrics() : await everything.metrics())
  })
}
