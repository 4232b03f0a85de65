import { execFileSync } from 'node:child_process'
import { chownSync, existsSync, readdirSync, readFileSync } from 'node:fs'
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
  /** Ends it as a crash would (`pg_ctl stop -m immediate`). */
  kill(): void
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

/** Runs one of PostgreSQL's programs (as the `postgres` OS user when the tests run as root). */
function run(program: string, args: string[]): void {
  const [file, argv] = runAsPostgres ? ['runuser', ['-u', 'postgres', '--', join(bin!, program), ...args]] : [join(bin!, program), args]
  try {
    execFileSync(file, argv, { stdio: 'pipe', encoding: 'utf8' })
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string }
    throw new Error(`${program} ${args.join(' ')} failed:\n${stdout ?? ''}${stderr ?? ''}`)
  }
}

/** The `pg_ctl -o` options of a throwaway server on `port`, its socket in `directory`, plus `-c` `settings`. */
function serverOptions(port: number, directory: string, settings: string[]): string {
  return [`-p ${port} -k ${directory} -c listen_addresses=127.0.0.1 -c fsync=off`, ...settings.map((setting) => `-c ${setting}`)].join(' ')
}

/** A primary and its streaming standby, both throwaway clusters of a test's own. */
export interface ReplicatedPair {
  primary: ThrowawayCluster
  /** URL of the standby's `postgres` database (read-only until promoted). */
  standbyUrl: string
  /** Ends the primary as a crash would (`pg_ctl stop -m immediate`: no checkpoint, sessions cut). */
  killPrimary(): void
  /** Promotes the standby (`pg_ctl promote`), waiting until it accepts writes. */
  promote(): void
  /** Stops the standby (`pg_ctl stop -m immediate`: its sessions cut), as a replica's crash would. */
  stopStandby(): void
  /** Stops both and removes their files. */
  destroy(): void
}

/**
 * The options of the `pg_basebackup` line of docs/several-instances.md "Read replicas" other than
 * where it connects and writes (`-h`, `-p`, `-U`, `-D` and their values): the replica every test
 * makes is the documented one (`-R -X stream`: streaming from the primary, set up to follow it).
 */
export function documentedBaseBackupOptions(): string[] {
  const page = readFileSync(new URL('../../docs/several-instances.md', import.meta.url), 'utf8')
  const line = /^pg_basebackup (.+)$/m.exec(page.slice(page.indexOf('### Read replicas')))?.[1]
  if (line === undefined) throw new Error('docs/several-instances.md "Read replicas" shows no pg_basebackup line')
  const words = line.trim().split(/\s+/)
  return words.filter((word, index) => !['-h', '-p', '-U', '-D'].includes(word) && !['-h', '-p', '-U', '-D'].includes(words[index - 1] ?? ''))
}

/** Options of {@link startReplicatedPair}. */
export interface ReplicatedPairOptions {
  /** Whether a commit waits for the standby (default true); false: an asynchronous standby, as read replicas usually are. */
  synchronous?: boolean
  /** `name=value` settings of the standby's server (e.g. `recovery_min_apply_delay=3s`: a replica that lags on purpose). */
  standbySettings?: string[]
}

/**
 * A throwaway primary with one streaming standby (`pg_basebackup` with the options of
 * {@link documentedBaseBackupOptions}), by default synchronous
 * (`synchronous_standby_names = '*'`, `synchronous_commit = on`): a commit returns, and is seen
 * by other sessions, only once the standby has flushed it (docs/several-instances.md "Failover").
 *
 * @throws as {@link startThrowawayCluster}, or when pg_basebackup or the standby's start fail.
 */
export async function startReplicatedPair(options: ReplicatedPairOptions = {}): Promise<ReplicatedPair> {
  const primary = await startThrowawayCluster(options.synchronous === false ? [] : ["synchronous_standby_names='*'", 'synchronous_commit=on'])
  const directory = temporaryDirectory('book-service-standby-')
  if (uid !== undefined) chownSync(directory, uid, uid)
  const port = await freePort()
  const data = join(directory, 'data')
  const source = new URL(primary.url)
  let running = false
  try {
    run('pg_basebackup', ['-h', '127.0.0.1', '-p', source.port, '-U', 'postgres', '-D', data, ...documentedBaseBackupOptions(), '--no-sync'])
    run('pg_ctl', ['-D', data, '-o', serverOptions(port, directory, options.standbySettings ?? []), '-l', join(directory, 'log'), '-w', 'start'])
    running = true
  } catch (error) {
    primary.destroy()
    removeDirectory(directory)
    throw error
  }
  return {
    primary,
    standbyUrl: `postgres://postgres@127.0.0.1:${port}/postgres`,
    killPrimary: () => primary.kill(),
    promote: () => run('pg_ctl', ['-D', data, '-w', 'promote']),
    stopStandby: () => {
      run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop'])
      running = false
    },
    destroy: () => {
      if (running) run('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop'])
      running = false
      removeDirectory(directory)
      primary.destroy()
    }
  }
}

/**
 * Creates and starts a throwaway PostgreSQL cluster in a temporary folder (`initdb`, `pg_ctl`;
 * as the `postgres` OS user when the tests run as root, since PostgreSQL refuses root), with
 * `settings` (`name=value`) on its command line. fsync is off: the data is thrown away. Call
 * `destroy()` when done.
 *
 * @throws when {@link clusterSkipReason} is set, or initdb / pg_ctl fail (their output in the message).
 */
export async function startThrowawayCluster(settings: string[] = []): Promise<ThrowawayCluster> {
  if (clusterSkipReason !== undefined || bin === undefined) throw new Error(clusterSkipReason)
  const directory = temporaryDirectory('book-service-pg-')
  if (uid !== undefined) chownSync(directory, uid, uid)
  const port = await freePort()
  const data = join(directory, 'data')
  const options = serverOptions(port, directory, settings)
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
    kill: () => {
      run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop'])
      running = false
    },
    destroy: () => {
      if (running) stop()
      running = false
      removeDirectory(directory)
    }
  }
}
