/**
 * `npm run bench:online-migration`: migration 0015 (`title_word_starts`) applied to a PostgreSQL
 * database of a million books while an instance of the release before it serves writes
 * (docs/operations.md "Migrations while other instances serve"; docs/benchmarks.md "Search").
 *
 * Copies bench:search's cached million-book database (`search_<books>_<last migration>`, made by
 * `npm run bench:search` first), removes 0015 from it (as a database of the release before),
 * starts the older build (BENCH_BEFORE_ENTRY, a `dist/start.js`; bench:compare's builds under
 * `~/.cache/book-service/bench-compare/` serve) on it, and runs 4 writers (`POST /book`, one
 * request at a time each) against it; after 5 s it runs this build's `book-service migrate` on the
 * same database, and the writers go on until 5 s after the migration ends. Prints the migration's
 * time and the writes' latency before, during and after it: the target is that no write waits
 * more than 1 s.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { execFile } from 'node:child_process'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { createSigner } from 'fast-jwt'
import pg from 'pg'
import { MIGRATION_NAMES } from '../src/storage/schema/migrate.js'
import { startService } from './processes.js'
import { POSTGRES_ADMIN_URL } from './seed.js'

const BOOKS = Number(process.env.SEARCH_BOOKS ?? 1_000_000)
const BEFORE = process.env.BENCH_BEFORE_ENTRY
if (!BEFORE) throw new Error('BENCH_BEFORE_ENTRY: the dist/start.js of the release before migration 0015')
const SECRET = 'search-benchmark-secret-0123456789abcdefghijklmnop'
const token = createSigner({ key: SECRET, algorithm: 'HS256', expiresIn: 3_600_000 })({ sub: 'bench' })
const WRITERS = 4

const source = `search_${BOOKS}_${MIGRATION_NAMES.at(-1)!.slice(0, 4)}`
const copy = `online_migration_${process.pid}`
const admin = new pg.Client({ connectionString: POSTGRES_ADMIN_URL })
await admin.connect()
await admin.query(`CREATE DATABASE ${copy} TEMPLATE ${source}`)
const url = new URL(POSTGRES_ADMIN_URL)
url.pathname = `/${copy}`
const databaseUrl = url.toString()
const directory = mkdtempSync(join(tmpdir(), 'book-online-migration-'))
try {
  const client = new pg.Client({ connectionString: databaseUrl })
  await client.connect()
  await client.query(`DROP TABLE title_word_starts; DROP TABLE online_backfills;
    DROP FUNCTION books_title_word_starts_insert() CASCADE; DROP FUNCTION books_title_word_starts_update() CASCADE;
    DROP FUNCTION books_title_word_starts_delete() CASCADE; DROP FUNCTION title_word_start_keys(text);
    DELETE FROM kysely_migration WHERE name = '0015_title_word_starts'; DELETE FROM schema_compatibility WHERE migration = '0015_title_word_starts'`)
  await client.query('VACUUM ANALYZE books')
  await client.end()
  const service = await startService({ directory, databaseUrl, secret: SECRET, entry: BEFORE, env: { LOG_LEVEL: 'warn' } })
  const samples: Array<{ at: number; ms: number; status: number }> = []
  let running = true
  const writer = async (index: number) => {
    for (let i = 0; running; i++) {
      const started = performance.now()
      const response = await fetch(`${service.url}/book`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ title: `Written during the migration ${index}-${i}`, author: 'Bench', year: 2026 })
      })
      await response.arrayBuffer()
      samples.push({ at: started, ms: performance.now() - started, status: response.status })
    }
  }
  const writers = Array.from({ length: WRITERS }, (_, index) => writer(index))
  await new Promise((resolve) => setTimeout(resolve, 5000))
  const migrationStart = performance.now()
  const { stdout, stderr } = await promisify(execFile)(process.execPath, ['dist/book-service.js', 'migrate'], {
    env: { ...process.env, DATABASE_URL: databaseUrl, LOG_LEVEL: 'info' }
  })
  const migrationEnd = performance.now()
  await new Promise((resolve) => setTimeout(resolve, 5000))
  running = false
  await Promise.all(writers)
  await service.stop()
  const check = new pg.Client({ connectionString: databaseUrl })
  await check.connect()
  const { rows } = await check.query<{ keys: string; done: boolean }>('SELECT (SELECT count(*) FROM title_word_starts) AS keys, (SELECT done FROM online_backfills) AS done')
  await check.end()
  const phase = (from: number, to: number) => {
    const inPhase = samples.filter((sample) => sample.at >= from && sample.at < to).map((sample) => sample.ms).sort((a, b) => a - b)
    const at = (q: number) => inPhase[Math.min(inPhase.length - 1, Math.floor(q * inPhase.length))] ?? 0
    const seconds = (to - from) / 1000
    return `${inPhase.length} writes (${(inPhase.length / seconds).toFixed(0)}/s), p50 ${at(0.5).toFixed(1)} ms, p99 ${at(0.99).toFixed(1)} ms, max ${(inPhase.at(-1) ?? 0).toFixed(1)} ms`
  }
  const first = samples[0]!.at
  console.log(`migrate: ${((migrationEnd - migrationStart) / 1000).toFixed(1)} s; ${stdout.trim()} ${stderr.trim()}`.trim())
  console.log(`keys after: ${rows[0]!.keys}, backfill done: ${rows[0]!.done}`)
  console.log(`writes before the migration: ${phase(first, migrationStart)}`)
  console.log(`writes during the migration: ${phase(migrationStart, migrationEnd)}`)
  const last = samples.at(-1)!
  console.log(`writes after it: ${phase(migrationEnd, last.at + last.ms)}`)
  console.log(`refused writes: ${samples.filter((sample) => sample.status !== 201).length}`)
} finally {
  await admin.query(`DROP DATABASE IF EXISTS ${copy} WITH (FORCE)`)
  await admin.end()
  rmSync(directory, { recursive: true, force: true })
}
