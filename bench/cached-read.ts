/**
 * `npm run bench:cached-read`: what the coherence check adds to a cached read on SQLite (README
 * "Running several instances"). A read by id first compares `PRAGMA data_version` with the value
 * it saw last; this measures, in one run, the CPU time per call of:
 *
 * - `storage.books.get(id)` of a cached book (the check, then the cache), through the storage;
 * - the check alone: one `PRAGMA data_version` step on a connection of its own;
 * - the cache alone: a `Map.get` of the same size (what a cached read cost without the check).
 *
 * The target is at most 3 µs more CPU per cached read than the cache alone. Environment:
 * CACHED_READ_CALLS (default 2,000,000 per measure).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { SqliteDatabase } from '../src/storage/sqlite/sqlite-database.js'
import { UNKNOWN_CHANGE_CONTEXT } from '../src/storage/contracts/change-log.js'

const CALLS = Number(process.env.CACHED_READ_CALLS ?? 2_000_000)
const BOOKS = 1000
const TARGET_US = 3

/** CPU time (user + system) per call of `work`, in microseconds, over {@link CALLS} calls. */
async function cpuPerCall(work: (index: number) => unknown): Promise<number> {
  for (let index = 0; index < 10_000; index++) await work(index) // warm up
  const start = process.cpuUsage()
  for (let index = 0; index < CALLS; index++) await work(index)
  const used = process.cpuUsage(start)
  return (used.user + used.system) / CALLS
}

const directory = mkdtempSync(join(tmpdir(), 'book-service-cached-read-'))
try {
  const path = join(directory, 'books.db')
  const storage = await SqliteDatabase.open(path)
  const ids: number[] = []
  for (let n = 0; n < BOOKS; n++) ids.push((await storage.books.create({ title: `Book ${n}`, author: 'Author', year: 2000 }, UNKNOWN_CHANGE_CONTEXT)).id)
  for (const id of ids) await storage.books.get(id) // every book cached
  const other = new Database(path, { readonly: true })
  const dataVersion = other.prepare('PRAGMA data_version').pluck()
  const map = new Map(ids.map((id) => [id, { id }]))

  const cacheAlone = await cpuPerCall(async (index) => map.get(ids[index % BOOKS]!))
  const check = await cpuPerCall(async () => dataVersion.get())
  const cachedRead = await cpuPerCall((index) => storage.books.get(ids[index % BOOKS]!))
  other.close()
  await storage.close()

  const added = cachedRead - cacheAlone
  const line = (name: string, us: number) => console.log(`${name.padEnd(44)} ${us.toFixed(3)} µs CPU per call`)
  console.log(`Node ${process.version}, ${CALLS.toLocaleString('en')} calls per measure`)
  line('store.get(id), cached (check + cache)', cachedRead)
  line('PRAGMA data_version alone', check)
  line('Map.get alone (the cache without the check)', cacheAlone)
  line('added by the check (storage.books.get - Map.get)', added)
  console.log(`target ≤ ${TARGET_US} µs added: ${added <= TARGET_US ? 'met' : 'NOT met'}`)
} finally {
  rmSync(directory, { recursive: true, force: true })
}
