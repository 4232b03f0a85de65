import { statSync } from 'node:fs'
import { basename } from 'node:path'

/** What became of the files a connection opened: which one is gone or replaced, in words. */
export interface FileChange {
  /**
   * The database file itself was removed (`removed`), another file is at its path (`replaced`), or
   * the file opened holds no byte any more though it held some (`emptied`: `truncate -s 0`).
   */
  database?: 'removed' | 'replaced' | 'emptied'
  /** The same for its write-ahead log (`<file>-wal`), which holds the latest commits until a checkpoint. */
  wal?: 'removed' | 'replaced'
  /** One line for the log: e.g. `books.db-wal was removed while in use`. */
  description: string
}

/** The device and inode (`<dev>:<ino>`) of the database file and of its `-wal` a connection opened; undefined: none. */
export interface OpenedFiles {
  database: string | undefined
  wal: string | undefined
}

/** The device and inode of a file and its size in bytes, or undefined when nothing is at that path. */
function identityOf(path: string): { id: string; size: number } | undefined {
  const stat = statSync(path, { throwIfNoEntry: false })
  return stat === undefined ? undefined : { id: `${stat.dev}:${stat.ino}`, size: stat.size }
}

/**
 * Watches the database file at `path` and its `-wal` as they were when this was called (after the
 * connection opened them): a file removed (`rm books.db`) or replaced while the service runs keeps
 * being written by the open connection, but what is written there is lost with it. A database file
 * emptied in place (`truncate -s 0 books.db`) is damaged, whatever the connection still has cached
 * or in its log (a database file, once written, never shrinks to nothing). Two `stat` calls
 * per check (about 5 µs together, against about 0.5 ms for a commit's fsync: docs/operations.md "Readiness").
 *
 * @returns `changed()`, undefined while both are the files opened, else what changed; and
 *   `opened`, the device and inode (`<dev>:<ino>`) of each file when this was called.
 */
export function watchFileIdentity(path: string): { changed(): FileChange | undefined; opened: OpenedFiles } {
  const walPath = `${path}-wal`
  const database = identityOf(path)
  const wal = identityOf(walPath)
  let databaseHeldBytes = (database?.size ?? 0) > 0
  return {
    opened: { database: database?.id, wal: wal?.id },
    changed() {
      const change = (opened: { id: string } | undefined, now: { id: string } | undefined) =>
        opened === undefined || now?.id === opened.id ? undefined : now === undefined ? ('removed' as const) : ('replaced' as const)
      const current = identityOf(path)
      let databaseChange: FileChange['database'] = change(database, current)
      if (databaseChange === undefined && current !== undefined) {
        // The -wal is emptied by SQLite itself (a checkpoint); the database file, once written, never is.
        if (current.size > 0) databaseHeldBytes = true
        else if (databaseHeldBytes) databaseChange = 'emptied'
      }
      const result: Omit<FileChange, 'description'> = { database: databaseChange, wal: change(wal, identityOf(walPath)) }
      if (!result.database && !result.wal) return undefined
      const words = [
        result.database && `${basename(path)} was ${result.database}`,
        result.wal && `${basename(walPath)} was ${result.wal}`
      ].filter(Boolean)
      return { ...result, description: `${words.join(' and ')} while in use` }
    }
  }
}
