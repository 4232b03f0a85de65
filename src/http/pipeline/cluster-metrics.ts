import cluster from 'node:cluster'
import type { Registry } from 'prom-client'

/*
 * The metrics of the whole service when `WORKERS` > 1 (docs/several-instances.md "Running several instances"): a
 * worker's GET /metrics asks the primary, which gathers every worker's registries with
 * prom-client's AggregatorRegistry (counters and histograms summed, gauges as each one's
 * `aggregator` says) and sends the text back. The route, its path and its answer stay the
 * worker's (http/pipeline/metrics.ts).
 */

/** The message a worker sends the primary for the service's metrics. */
const REQUEST = 'book-service:metrics-request'
/** The primary's answer: the Prometheus text, or why it has none. */
const RESPONSE = 'book-service:metrics-response'

/** How long a worker waits for the primary's answer, in ms (prom-client gives each worker 5 s). */
const ANSWER_TIMEOUT_MS = 10_000

interface MetricsRequest {
  type: typeof REQUEST
  id: number
}

interface MetricsResponse {
  type: typeof RESPONSE
  id: number
  text?: string
  error?: string
}

/** True in a worker process of the cluster, where /metrics must speak for every worker. */
export function inClusterWorker(): boolean {
  return cluster.isWorker
}

const pending = new Map<number, { resolve: (text: string) => void; reject: (error: Error) => void }>()
let nextId = 0
let listening = false

/**
 * In a worker: makes `registries` the ones the primary gathers from this worker (prom-client's
 * cluster protocol, which this sets up).
 */
export function reportToPrimary(promClient: typeof import('prom-client'), registries: Registry[]): void {
  promClient.AggregatorRegistry.setRegistries(registries)
  new promClient.AggregatorRegistry() // installs the worker's answer to the primary's requests
}

/**
 * In a worker: the metrics of every worker, from the primary, in the Prometheus text format.
 *
 * @throws when the primary does not answer within 10 s or could not gather them.
 */
export function serviceMetrics(): Promise<string> {
  if (!listening) {
    listening = true
    process.on('message', (message: MetricsResponse) => {
      if (message?.type !== RESPONSE) return
      const waiting = pending.get(message.id)
      pending.delete(message.id)
      if (message.text !== undefined) waiting?.resolve(message.text)
      else waiting?.reject(new Error(`the primary could not gather the metrics: ${message.error}`))
    })
  }
  const id = nextId++
  return new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      pending.delete(id)
      reject(new Error(`the primary did not answer for the metrics within ${ANSWER_TIMEOUT_MS} ms`))
    }, ANSWER_TIMEOUT_MS)
    pending.set(id, {
      resolve: (text) => (clearTimeout(timer), resolve(text)),
      reject: (error) => (clearTimeout(timer), reject(error))
    })
    process.send!({ type: REQUEST, id } satisfies MetricsRequest)
  })
}

/**
 * In the primary: answers each worker's request with the metrics of every worker
 * (prom-client's `AggregatorRegistry.clusterMetrics()`).
 */
export async function answerMetricsRequests(): Promise<void> {
  const { AggregatorRegistry } = (await import('prom-client')).default
  const aggregator = new AggregatorRegistry()
  cluster.on('message', (worker, message: MetricsRequest) => {
    if (message?.type !== REQUEST) return
    const answer = (response: Omit<MetricsResponse, 'type' | 'id'>) => {
      if (worker.isConnected()) worker.send({ type: RESPONSE, id: message.id, ...response } satisfies MetricsResponse)
    }
    aggregator.clusterMetrics().then(
      (text) => answer({ text }),
      (error: Error) => answer({ error: error.message })
    )
  })
}
