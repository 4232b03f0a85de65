import autocannon from 'autocannon'
import { cpuMilliseconds, residentBytes, sampleResident, type Target } from './processes.js'

/** How a scenario loads its target. */
export interface Load {
  /** Request method, path and body; `request(i)` is called for every request sent. */
  request: () => { method: 'GET' | 'POST' | 'PUT'; path: string; body?: string }
  headers?: Record<string, string>
  connections: number
  /** Measured seconds (ignored when `amount` is set). */
  duration: number
  /** Warm-up seconds, run just before and not counted. */
  warmup: number
  /** Fixed number of requests instead of a duration (for very large responses). */
  amount?: number
  /** Seconds before a request counts as a timeout (an error). */
  timeout?: number
}

/** What one scenario measured. */
export interface Measurement {
  rps: number
  p50_ms: number
  p99_ms: number
  max_ms: number
  /** Transport errors + timeouts + non-2xx answers. Must be 0. */
  errors: number
  non2xx: number
  requests: number
  /** Peak RSS of the target process during warm-up and run, in MB. */
  rss_mb: number
  /** Peak RSS minus the RSS just before the warm-up, in MB. */
  rss_growth_mb: number
  /** CPU time the target used per request during the measured run, in microseconds. */
  cpu_us: number
}

const MB = 1024 * 1024
const round = (value: number, digits = 1) => Math.round(value * 10 ** digits) / 10 ** digits

async function fire(target: Target, load: Load, seconds: number, amount?: number): Promise<autocannon.Result> {
  const headers = { 'content-type': 'application/json', ...load.headers }
  return autocannon({
    url: target.url,
    connections: load.connections,
    pipelining: 1,
    ...(amount === undefined ? { duration: seconds } : { amount }),
    timeout: load.timeout ?? 10,
    headers,
    // A fresh headers object for every request: autocannon adds Content-Length to the one it gets.
    requests: [{ setupRequest: (request) => ({ ...request, headers: { ...headers }, ...load.request() }) }]
  })
}

/**
 * Runs `load` against `target`: a warm-up (not counted), then the measured run, while sampling
 * the target's RSS every 20 ms.
 */
export async function measure(target: Target, load: Load): Promise<Measurement> {
  const before = residentBytes(target.child.pid!)
  const sampler = sampleResident(target.child.pid!)
  if (load.warmup > 0) {
    await fire(target, load, load.warmup, load.amount === undefined ? undefined : Math.min(load.connections, load.amount))
  }
  const cpuBefore = cpuMilliseconds(target.child.pid!)
  const result = await fire(target, load, load.duration, load.amount)
  const cpu = cpuMilliseconds(target.child.pid!) - cpuBefore
  const peak = sampler.stop()
  const seconds = result.duration > 0 ? result.duration : load.duration
  return {
    rps: round(result.requests.total / seconds, result.requests.total / seconds < 100 ? 2 : 0),
    p50_ms: result.latency.p50,
    p99_ms: result.latency.p99,
    max_ms: result.latency.max,
    errors: result.errors + result.timeouts + result.non2xx,
    non2xx: result.non2xx,
    requests: result.requests.total,
    rss_mb: round(peak / MB),
    rss_growth_mb: round((peak - before) / MB),
    cpu_us: result.requests.total > 0 ? Math.round((cpu * 1000) / result.requests.total) : 0
  }
}
