/*
 * What `book-service backup` and `restore` get back from the storage (docs/data.md "Backups and
 * moving data"): storage/open.ts runs the engine's own (sqlite/sqlite-backup.ts,
 * postgres/postgres-backup.ts).
 */

/** A backup that cannot be used, or a database that cannot be replaced now: one line for the operator. */
export class BackupError extends Error {
  override name = 'BackupError'
}

/** How a run of pg_dump ended: its exit code, or `'missing'` when it is not installed (not on PATH). */
export type PgDumpOutcome = number | 'missing'

/**
 * What a backup came to: on SQLite the snapshot written, with the books it holds; on PostgreSQL
 * the run of pg_dump (0 when the backup is written).
 */
export type BackupOutcome = { engine: 'sqlite'; books: number } | { engine: 'postgres'; pgDump: PgDumpOutcome }

/** What a restore of a backup did (SQLite). */
export interface RestoredBackup {
  /** Books in the restored database. */
  books: number
  /** Where the replaced database was kept (undefined when there was none). */
  previous: string | undefined
}
