/**
 * `node --import tsx bench/cold-start.ts [runs]`: starts `node dist/start.js` on a seeded SQLite
 * database `runs` times (default 5) and prints each time from spawn to the first authenticated
 * 200 on GET /book/1, then the best and the median, and the CPU time the process had used by
 * then (which a busy machine inflates far less than the wall time). Expects `npm run build` done.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createSigner } from 'fast-jwt'
import { cpuMilliseconds, startService } from './processes.js'
import { seedSqlite } from './seed.js'

const runs = Number(process.argv[2] ?? 5)
const secret = 'bench-secret-0123456789-abcdefghijklmnopqrstuvwxyz'
const token = createSigner({ key: secret, algorithm: 'HS256', expiresIn: 3_600_000 })({ sub: 'bench' })
const directory = mkdtempSync(join(tmpdir(), 'book-cold-start-'))
try {
  await seedSqlite(join(directory, 'books.db'), 1000)
  const times: number[] = []
  const cpu: number[] = []
  for (let run = 0; run < runs; run++) {
    const service = await startService({
      directory, databaseUrl: join(directory, 'books.db'), secret, readyPath: '/book/1',
      readyHeaders: { authorization: `Bearer ${token}` }
    })
    times.push(Math.round(service.startMs))
    cpu.push(cpuMilliseconds(service.child.pid!))
    await service.stop()
  }
  const sorted = [...times].sort((a, b) => a - b)
  console.log(`cold start (ms): ${times.join(', ')}; best ${sorted[0]}, median ${sorted[Math.floor(sorted.length / 2)]}`)
  console.log(`CPU time used by then (ms, 10 ms ticks): ${cpu.join(', ')}`)
} finally {
  rmSync(directory, { recursive: true, force: true })
}
