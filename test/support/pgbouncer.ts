import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { chmodSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import pg from 'pg'
import { eventually } from './client.js'
import { POSTGRES_ADMIN_URL, postgresSkipReason } from './engines.js'
import { freePort, removeDirectory, temporaryDirectory } from './server.js'

/** The `pgbouncer` on the PATH (Debian's package; `.ci/run` installs it), or undefined. */
const binary = spawnSync('sh', ['-c', 'command -v pgbouncer'], { encoding: 'utf8' }).stdout.trim() || undefined

/** Why the PgBouncer tests are skipped (no PostgreSQL, or no `pgbouncer`), or undefined when they run. */
export const pgbouncerSkipReason =
  postgresSkipReason ?? (binary === undefined ? 'pgbouncer not installed (Debian package pgbouncer; .ci/run installs it): PgBouncer tests skipped' : undefined)

/** The `pgbouncer.ini` of docs/several-instances.md "Behind PgBouncer", as the documentation shows it. */
const documentedIni = /```ini\n(\[databases\][\s\S]*?)```/.exec(readFileSync(new URL('../../docs/several-instances.md', import.meta.url), 'utf8'))![1]!

/**
 * The statement bound as docs/several-instances.md "Behind PgBouncer" sets it (its `connect_query`,
 * read from the page): on every server connection the pooler opens, since the service's pooled
 * connections carry no startup setting.
 */
export const BOUND_CONNECT_QUERY = /connect_query='([^']+)'/.exec(documentedIni)![1]!

/** The documented `pool_mode` (transaction). */
const POOL_MODE = /^pool_mode = (\w+)$/m.exec(documentedIni)![1]!

/** A PgBouncer in transaction mode in front of the tests' PostgreSQL server. */
export interface RunningPgBouncer {
  /** `url`'s database through the pooler (same user and database name). */
  through(url: string): string
  /** Its log so far. */
  log(): string
  /** Its process id (for its CPU time in bench/pgbouncer.ts). */
  pid: number
  stop(): Promise<void>
}

/**
 * Starts PgBouncer (transaction mode, trust authentication, on 127.0.0.1 and a free port) in
 * front of the server of `POSTGRES_ADMIN_URL`, every database passed through, at most `poolSize`
 * server connections per database and user. Run as the `postgres` user when the tests run as root
 * (PgBouncer refuses root). Resolves once it accepts connections.
 *
 * @throws when it does not start within 10 s (its log in the message).
 */
export async function startPgBouncer(options: { poolSize: number; connectQuery?: string }): Promise<RunningPgBouncer> {
  const directory = temporaryDirectory('pgbouncer-')
  chmodSync(directory, 0o777)
  const server = new URL(POSTGRES_ADMIN_URL)
  const port = await freePort()
  const connectQuery = options.connectQuery === undefined ? '' : ` connect_query='${options.connectQuery}'`
  const ini = join(directory, 'pgbouncer.ini')
  writeFileSync(join(directory, 'users.txt'), `"${decodeURIComponent(server.username)}" ""\n"root" ""\n`)
  writeFileSync(
    ini,
    `[databases]
* = host=${server.hostname} port=${server.port || 5432}${connectQuery}
[pgbouncer]
listen_addr = 127.0.0.1
listen_port = ${port}
unix_socket_dir =
auth_type = trust
auth_file = ${join(directory, 'users.txt')}
pool_mode = ${POOL_MODE}
default_pool_size = ${options.poolSize}
max_client_conn = 500
logfile = ${join(directory, 'pgbouncer.log')}
`
  )
  // setpriv execs PgBouncer itself (no process in between), so a signal reaches it.
  const asRoot = process.getuid?.() === 0
  const child: ChildProcess = asRoot
    ? spawn('setpriv', ['--reuid=postgres', '--regid=postgres', '--clear-groups', binary!, ini], { stdio: 'ignore' })
    : spawn(binary!, [ini], { stdio: 'ignore' })
  // A test that fails half-way must not leave the pooler running after the test process ends.
  const killOnExit = () => child.kill('SIGKILL')
  process.once('exit', killOnExit)
  const log = () => {
    try {
      return readFileSync(join(directory, 'pgbouncer.log'), 'utf8')
    } catch {
      return ''
    }
  }
  const through = (url: string) => {
    const pooled = new URL(url)
    pooled.hostname = '127.0.0.1'
    pooled.port = String(port)
    return pooled.toString()
  }
  const stop = async () => {
    process.removeListener('exit', killOnExit)
    if (child.exitCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve))
      child.kill('SIGINT')
      await exited
    }
    removeDirectory(directory)
  }
  try {
    await eventually('pgbouncer accepts connections', async () => {
      if (child.exitCode !== null) throw new Error(`pgbouncer exited ${child.exitCode}: ${log()}`)
      const client = new pg.Client({ connectionString: through(POSTGRES_ADMIN_URL), connectionTimeoutMillis: 1000 })
      try {
        await client.connect()
        await client.query('SELECT 1')
        return true
      } catch {
        return false
      } finally {
        await client.end().catch(() => {})
      }
    }, 10_000)
  } catch (error) {
    await stop()
    throw new Error(`${(error as Error).message}\n${log()}`)
  }
  return { through, log, pid: child.pid!, stop }
}
