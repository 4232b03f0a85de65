/**
 * `npm run lint`'s check of the PostgreSQL migrations with squawk (npm `squawk-cli`, the
 * PostgreSQL migration linter; docs/operations.md "Migrations while other instances serve").
 *
 * The migrations are TypeScript that send SQL: each is run here for PostgreSQL against a Kysely
 * whose driver records the statements instead of sending them (a query reads no rows), and its
 * SQL is written to a temporary folder: `NNNN_name.sql`, the transactional `up` (squawk told it
 * runs in a transaction, as the migrator runs it), and `NNNN_name.online.sql`, the `online` part
 * (outside any transaction). Then squawk lints every file; any finding fails the lint.
 *
 * The rules switched off, each for a reason that holds for every migration here, are in
 * {@link EXCLUDED_RULES}; findings of released migrations that cannot change are accepted by file
 * and rule in {@link GRANDFATHERED}, with what they cost.
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { basename, join } from 'node:path'
import {
  Kysely, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler, sql, type CompiledQuery, type DatabaseConnection, type Driver, type QueryResult
} from 'kysely'
import { MIGRATIONS } from '../src/storage/schema/migrations/index.js'

/**
 * squawk rules switched off for every file, each for a reason that holds for every migration here.
 * - `prefer-bigint-over-int`: the `integer` columns hold small numbers (versions, attempts, years,
 *   flags, HTTP statuses); every id and sequence number is `bigint`.
 * - `require-statement-timeout`: migrations run on connections of their own with
 *   `statement_timeout = 0` on purpose (src/storage/postgres/postgres-connection.ts): an index
 *   built concurrently on millions of rows may take minutes, and cutting it would leave it invalid.
 * - `require-lock-timeout`: every statement of the serving instances runs under the 10 s
 *   `statement_timeout`, so a migration's lock waits behind a query at most that long; and the
 *   migrations that take a lock blocking reads or writes are the released ones below, none newer.
 */
const EXCLUDED_RULES = ['prefer-bigint-over-int', 'require-statement-timeout', 'require-lock-timeout']

/**
 * Released migrations cannot change (a migration is never edited once released): their findings,
 * by file and rule, are accepted here; what each costs on a large database is written in
 * docs/operations.md "Migrations while other instances serve". A new finding fails the lint.
 */
const GRANDFATHERED: Readonly<Record<string, readonly string[]>> = {
  // Three indexes on books built in the migration's transaction: writes wait while they build.
  '0002_versions_and_list_indexes.sql': ['require-concurrent-index-creation'],
  // The change log's numbering: a column with a default, a serial column, a unique index and
  // checks on book_changes, in one transaction (the table is trimmed, so it is bounded).
  '0007_change_log_numbering.sql': [
    'adding-field-with-default', 'adding-serial-primary-key-field', 'ban-drop-not-null', 'constraint-missing-not-valid',
    'disallowed-unique-constraint', 'require-concurrent-index-creation'
  ],
  // One index on the change log built in the transaction.
  '0008_change_history.sql': ['require-concurrent-index-creation'],
  // Two stored generated columns: a rewrite of books under an ACCESS EXCLUSIVE lock.
  '0009_search_index.sql': ['adding-field-with-default'],
  // The accounts' skeleton index built in the transaction (accounts are few).
  '0011_replays_and_username_skeletons.sql': ['require-concurrent-index-creation']
}

/** A driver that keeps the SQL it is given and answers every query with no rows. */
class RecordingDriver implements Driver {
  readonly statements: string[] = []
  async init(): Promise<void> {}
  async acquireConnection(): Promise<DatabaseConnection> {
    const statements = this.statements
    return {
      async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
        statements.push(inlined(query))
        return { rows: [], numAffectedRows: 0n }
      },
      // eslint-disable-next-line require-yield -- no migration streams
      async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
        throw new Error('a migration does not stream')
      }
    }
  }
  async beginTransaction(): Promise<void> {}
  async commitTransaction(): Promise<void> {}
  async rollbackTransaction(): Promise<void> {}
  async releaseConnection(): Promise<void> {}
  async destroy(): Promise<void> {}
}

/** The query's SQL with its parameters written in as literals (squawk lints SQL text). */
function inlined(query: CompiledQuery): string {
  if (query.parameters.length === 0) return query.sql
  return query.sql.replace(/\$(\d+)/g, (_, index: string) => {
    const value = query.parameters[Number(index) - 1]
    return typeof value === 'number' || typeof value === 'bigint' ? String(value) : `'${String(value).replaceAll("'", "''")}'`
  })
}

/** The SQL of `run` against a recording Kysely, as one script. */
async function recorded(run: (db: Kysely<unknown>) => Promise<void>): Promise<string> {
  const driver = new RecordingDriver()
  const db = new Kysely<unknown>({
    dialect: {
      createAdapter: () => new PostgresAdapter(),
      createDriver: () => driver,
      createIntrospector: (kysely) => new PostgresIntrospector(kysely),
      createQueryCompiler: () => new PostgresQueryCompiler()
    }
  })
  await run(db)
  return driver.statements.map((statement) => `${statement.trim()};\n`).join('\n')
}

/** One squawk finding: the file's name, the rule, and squawk's line. */
interface Finding {
  file: string
  rule: string
  line: string
}

/** Lints `files` with squawk (as run in a transaction or not); returns its findings. */
function squawk(files: readonly string[], inTransaction: boolean): Finding[] {
  if (files.length === 0) return []
  const binary = join(createRequire(import.meta.url).resolve('squawk-cli/package.json'), '..', 'js', 'bin', 'squawk')
  const args = [...files, `--exclude=${EXCLUDED_RULES.join(',')}`, '--reporter=gcc', ...(inTransaction ? ['--assume-in-transaction'] : [])]
  const result = spawnSync(process.execPath, [binary, ...args], { encoding: 'utf8' })
  if (result.error) throw result.error
  const findings = `${result.stdout}`.split('\n').flatMap((line) => {
    const match = /^(.*?):\d+:\d+: \w+: (\S+) /.exec(line)
    return match ? [{ file: basename(match[1]!), rule: match[2]!, line }] : []
  })
  // squawk exits non-zero on a finding; any other failure (a parse error) has no finding to show.
  if (result.status !== 0 && findings.length === 0) throw new Error(`squawk failed: ${result.stdout}${result.stderr}`)
  return findings
}

const folder = mkdtempSync(join(tmpdir(), 'squawk-migrations-'))
try {
  const transactional: string[] = []
  const online: string[] = []
  for (const [name, migrationOf] of Object.entries(MIGRATIONS).sort()) {
    const migration = migrationOf('postgres', sql)
    const file = join(folder, `${name}.sql`)
    writeFileSync(file, await recorded((db) => migration.up(db)))
    transactional.push(file)
    if (migration.online) {
      const onlineFile = join(folder, `${name}.online.sql`)
      writeFileSync(onlineFile, await recorded(migration.online))
      online.push(onlineFile)
    }
  }
  const findings = [...squawk(transactional, true), ...squawk(online, false)]
  const accepted = findings.filter((finding) => GRANDFATHERED[finding.file]?.includes(finding.rule) === true)
  const refused = findings.filter((finding) => !accepted.includes(finding))
  if (refused.length > 0) {
    for (const finding of refused) process.stderr.write(`${finding.line}\n`)
    process.stderr.write('squawk: a PostgreSQL migration would stop a serving database (docs/operations.md "Migrations while other instances serve")\n')
    process.exitCode = 1
  } else {
    console.log(`squawk: ${transactional.length + online.length} PostgreSQL migration scripts checked, ${accepted.length} findings of released migrations accepted (docs/operations.md)`)
  }
} finally {
  rmSync(folder, { recursive: true, force: true })
}
