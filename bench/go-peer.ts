/**
 * The Go peer of the benchmark: the same contract on the stack the specification came from (Go +
 * gin + golang-jwt + SQLite), kept outside this repository; `GO_PEER_DIRECTORY` names its folder.
 * It is built with its own `build.sh` and started with `SQLITE_SYNC=FULL` so its writes are as
 * durable as the service's. When `GO_PEER_DIRECTORY` is unset, or the peer there cannot be built,
 * the benchmark says so and goes on without it.
 */
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { freePort, startProcess, type Target } from './processes.js'
import { seededBook } from './seeded-book.js'

/** Where the peer is (`GO_PEER_DIRECTORY`, a writable folder: the build writes its binary there), when set. */
const PEER_DIRECTORY = process.env.GO_PEER_DIRECTORY
/** The peer's binary, as its `build.sh` writes it. */
const peerBinary = (directory: string) => join(directory, 'bin/go-gin-books')

/**
 * Builds the peer (idempotent; its `build.sh` installs Go from Debian's packages the first time).
 *
 * @returns `{ ok: true }`, or `{ skip }` with the one-line reason it cannot be had.
 */
export function buildGoPeer(): { ok: true } | { skip: string } {
  if (PEER_DIRECTORY === undefined) return { skip: 'GO_PEER_DIRECTORY is not set (the folder of the Go peer)' }
  if (!existsSync(join(PEER_DIRECTORY, 'build.sh'))) return { skip: `no Go peer at ${PEER_DIRECTORY}` }
  const build = spawnSync('bash', [join(PEER_DIRECTORY, 'build.sh')], { encoding: 'utf8', timeout: 600_000 })
  if (build.status !== 0 || !existsSync(peerBinary(PEER_DIRECTORY))) {
    const reason = `${build.stderr ?? ''}${build.error?.message ?? ''}`.trim().split('\n').pop()
    return { skip: `the Go peer did not build (${reason || `exit ${build.status}`})` }
  }
  return { ok: true }
}

/**
 * Starts the Go peer on 127.0.0.1 with a new SQLite file in `directory`, signing and checking
 * tokens with `secret`, and stores `count` books through its own POST /book (the seeded books,
 * ids 1..count). Ready when an authenticated GET /books answers 200.
 *
 * @throws when `GO_PEER_DIRECTORY` is unset (call {@link buildGoPeer} first).
 */
export async function startGoPeer(options: {
  directory: string
  secret: string
  headers: Record<string, string>
  count: number
}): Promise<Target> {
  if (PEER_DIRECTORY === undefined) throw new Error('GO_PEER_DIRECTORY is not set (buildGoPeer says so first)')
  const port = await freePort()
  const target = await startProcess({
    name: 'Go peer (gin, SQLite FULL)',
    command: peerBinary(PEER_DIRECTORY),
    args: [],
    env: {
      SECRET_TOKEN: options.secret,
      PORT: String(port),
      DATABASE_PATH: join(options.directory, `go-peer-${options.count}.db`),
      SQLITE_SYNC: 'FULL',
      GIN_MODE: 'release'
    },
    port,
    logFile: join(options.directory, 'go-peer.log'),
    readyPath: '/books',
    readyHeaders: options.headers
  })
  for (let first = 1; first <= options.count; first += 50) {
    const batch = Array.from({ length: Math.min(50, options.count - first + 1) }, (_, offset) => first + offset)
    await Promise.all(batch.map(async (i) => {
      const response = await fetch(`${target.url}/book`, {
        method: 'POST',
        headers: { ...options.headers, 'content-type': 'application/json' },
        body: JSON.stringify(seededBook(i))
      })
      if (response.status !== 201) throw new Error(`Go peer: seeding book ${i} answered ${response.status}`)
    }))
  }
  return target
}
