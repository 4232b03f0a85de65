/**
 * The normal client of `bench/attacks.ts`, in a process of its own so that an attack's own load on
 * the benchmark process never slows it: `GET /book/1` with the bearer token `TOKEN`, every 100 ms,
 * each on a connection of its own from 127.0.0.2 (not the attacker's address), with a 10 s
 * timeout, until its standard input closes; then it prints `{ ok, total, slowestMs, p99Ms }` as JSON.
 *
 * Usage: node --import tsx bench/normal-client.ts PORT (token in the environment, `TOKEN`).
 */
import { request } from 'node:http'

const port = Number(process.argv[2])
const token = process.env.TOKEN ?? ''
let running = true
process.stdin.on('close', () => (running = false))
process.stdin.resume()

function once(): Promise<{ status: number; ms: number }> {
  const started = performance.now()
  return new Promise((resolve) => {
    const sent = request(
      { host: '127.0.0.1', port, path: '/book/1', localAddress: '127.0.0.2', agent: false, headers: { authorization: `Bearer ${token}` } },
      (response) => {
        response.resume()
        response.on('end', () => resolve({ status: response.statusCode ?? 0, ms: performance.now() - started }))
      }
    )
    sent.setTimeout(10_000, () => sent.destroy())
    sent.on('error', () => resolve({ status: 0, ms: performance.now() - started }))
    sent.end()
  })
}

const results: Array<{ status: number; ms: number }> = []
while (running) {
  results.push(await once())
  await new Promise((resolve) => setTimeout(resolve, 100))
}
const ok = results.filter((result) => result.status === 200).length
const times = results.map((result) => result.ms).sort((a, b) => a - b)
// The 99th percentile (nearest rank) of every answer's time, failures included.
const p99Ms = times.length === 0 ? 0 : Math.round(times[Math.ceil(times.length * 0.99) - 1]!)
process.stdout.write(JSON.stringify({ ok, total: results.length, slowestMs: Math.round(Math.max(0, ...times)), p99Ms }))
process.exit(0)
