import { execFileSync } from 'node:child_process'
import { chownSync, existsSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { freePort, removeDirectory, temporaryDirectory } from './server.js'
import { postgresScopeSkipReason, processSkipReason } from './scope.js'

/** A PostgreSQL server of a test's own, on a spare port, that the test may stop and start again. */
export interface ThrowawayCluster {
  /** URL of its `postgres` database (user `postgres`, trust authentication, 127.0.0.1 only). */
  url: string
  /** Stops the server (`pg_ctl stop -m fast`: open sessions get `terminating connection due to administrator command`). */
  stop(): void
  /** Starts it again on the same port, waiting until it accepts connections. */
  start(): void
  /** Stops it if running and removes its files. */
  destroy(): void
}

/** The newest installed PostgreSQL `bin` folder holding `initdb` and `pg_ctl` (Debian layout), if any. */
function postgresBin(): string | undefined {
  const root = '/usr/lib/postgresql'
  if (!existsSync(root)) return undefined
  const versions = readdirSync(root).filter((version) => existsSync(join(root, version, 'bin', 'initdb')))
  const newest = versions.sort((x, y) => Number(y) - Number(x))[0]
  return newest === undefined ? undefined : join(root, newest, 'bin')
}

/** The uid of the `postgres` OS user, if there is one. */
function postgresUid(): number | undefined {
  try {
    return Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim())
  } catch {
    return undefined
  }
}

const bin = postgresBin()
const runAsPostgres = process.getuid?.() === 0
const uid = runAsPostgres ? postgresUid() : undefined

/** Why throwaway clusters cannot be made here (then those tests are skipped), or undefined. */
export const clusterSkipReason: string | undefined =
  processSkipReason ??
  postgresScopeSkipReason ??
  (bin === undefined
    ? 'no PostgreSQL server binaries (initdb) under /usr/lib/postgresql: throwaway-cluster tests skipped'
    : runAsPostgres && uid === undefined
      ? 'running as root without a postgres OS user to run initdb as: throwaway-cluster tests skipped'
      : undefined)

/**
 * Creates and starts a throwaway PostgreSQL cluster in a temporary folder (`initdb`, `pg_ctl`;
 * as the `postgres` OS user when the tests run as root, since PostgreSQL refuses root). fsync is
 * off: the data is thrown away. Call `destroy()` when done.
 *
 * @throws when {@link clusterSkipReason} is set, or initdb / pg_ctl fail (their output in the message).
 */
export async function startThrowawayCluster(): Promise<ThrowawayCluster> {
  if (clusterSkipReason !== undefined || bin === undefined) throw new Error(clusterSkipReason)
  const directory = temporaryDirectory('book-service-pg-')
  if (uid !== undefined) chownSync(directory, uid, uid)
  const port = await freePort()
  const data = join(directory, 'data')
  const run = (program: string, args: string[]) => {
    const [file, argv] = runAsPostgres
      ? ['runuser', ['-u', 'postgres', '--', join(bin, program), ...args]]
      : [join(bin, program), args]
    try {
      execFileSync(file, argv, { stdio: 'pipe', encoding: 'utf8' })
    } catch (error) {
      const { stdout, stderr } = error as { stdout?: string; stderr?: string }
      throw new Error(`${program} ${args.join(' ')} failed:\n${stdout ?? ''}${stderr ?? ''}`)
    }
  }
  const options = `-p ${port} -k ${directory} -c listen_addresses=127.0.0.1 -c fsync=off`
  const start = () => run('pg_ctl', ['-D', data, '-o', options, '-l', join(directory, 'log'), '-w', 'start'])
  const stop = () => run('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop'])
  let running = false
  try {
    run('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync'])
    start()
    running = true
  } catch (error) {
    removeDirectory(directory)
    throw error
  }
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    stop: () => {
      stop()
      running = false
    },
    start: () => {
      start()
      running = true
    },
    destroy: () => {
      if (running) stop()
      running = false
      removeDirectory(directory)
    }
  }
}
