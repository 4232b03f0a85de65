/**
 * `node --import tsx bench/profile.ts <get|post|list> [seconds]`: starts `node --cpu-prof
 * dist/start.js` on a seeded SQLite database (1,000 books; 10,000 for `list`), loads one
 * scenario for `seconds` (default 8) with 50 connections, stops the service (its log is in the same folder) and prints the
 * hottest functions of the CPU profile (self time), plus the path of the `.cpuprofile` file
 * (open it in Chrome DevTools or speedscope for the full picture).
 */
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import autocannon from 'autocannon'
import { createSigner } from 'fast-jwt'
import { startService } from './processes.js'
import { seedSqlite, seededBook } from './seed.js'

interface ProfileNode {
  id: number
  callFrame: { functionName: string; url: string; lineNumber: number }
  hitCount: number
}

const [scenario = 'get', secondsText = '8'] = process.argv.slice(2)
const secret = 'bench-secret-0123456789-abcdefghijklmnopqrstuvwxyz'
const token = createSigner({ key: secret, algorithm: 'HS256', expiresIn: 3_600_000 })({ sub: 'bench' })
const directory = mkdtempSync(join(tmpdir(), 'book-profile-'))
const count = scenario === 'list' ? 10_000 : 1000
await seedSqlite(join(directory, 'books.db'), count)
const service = await startService({
  directory, databaseUrl: join(directory, 'books.db'), secret, nodeOptions: ['--cpu-prof', '--cpu-prof-dir', directory]
})
const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' }
const book = JSON.stringify(seededBook(7))
const result = await autocannon({
  url: service.url,
  connections: 50,
  duration: Number(secondsText),
  headers,
  requests: [{
    setupRequest: (request) => ({
      ...request,
      headers: { ...headers },
      ...(scenario === 'post'
        ? { method: 'POST', path: '/book', body: book }
        : scenario === 'list'
          ? { method: 'GET', path: '/books' }
          : { method: 'GET', path: `/book/${1 + Math.floor(Math.random() * count)}` })
    })
  }]
})
console.log(`${scenario}: ${Math.round(result.requests.total / result.duration)} req/s, p99 ${result.latency.p99} ms, non-2xx ${result.non2xx}, errors ${result.errors}, timeouts ${result.timeouts}, resets ${result.resets}`)
await service.stop()
const file = readdirSync(directory).find((name) => name.endsWith('.cpuprofile'))!
const profile = JSON.parse(readFileSync(join(directory, file), 'utf8')) as { nodes: ProfileNode[] }
const total = profile.nodes.reduce((sum, node) => sum + node.hitCount, 0)
const byFunction = new Map<string, number>()
for (const node of profile.nodes) {
  const { functionName, url, lineNumber } = node.callFrame
  const key = `${functionName || '(anonymous)'} ${url.replace(/^.*node_modules\//, '').replace(/^file:\/\/.*\/dist\//, 'dist/')}:${lineNumber + 1}`
  byFunction.set(key, (byFunction.get(key) ?? 0) + node.hitCount)
}
for (const [key, hits] of [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, 30)) {
  console.log(`${((hits / total) * 100).toFixed(1).padStart(5)}%  ${key}`)
}
console.log(`profile: ${join(directory, file)}`)
