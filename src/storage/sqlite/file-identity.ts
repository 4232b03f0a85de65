import { statSync } from 'node:fs'
import { basename } from 'node:path'

/** What became of the files a connection opened: which one is gone or replaced, in words. */
export interface FileChange {
  /** The database file itself was removed (`removed`) or another file is at its path (`replaced`). */
  database?: 'removed' | 'replaced'
  /** The same for its write-ahead log (`<file>-wal`), which holds the latest commits until a checkpoint. */
  wal?: 'removed' | 'replaced'
  /** One line for the log: e.g. `books.db-wal was removed while in use`. */
  description: string
}

/** The device and inode of a file, or undefined when nothing is at that path. */
function identityOf(path: string): string | undefined {
  const stat = statSync(path, { throwIfNoEntry: false })
  return stat === undefined ? undefined : `${stat.dev}:${stat.ino}`
}

/**
 * Watches the database file at `path` and its `-wal` as they were when this was called (after the
 * connection opened them): a file removed (`rm books.db`) or replaced while the service runs keeps
 * being written by the open connection, but what is written there is lost with it. Two `stat` calls
 * per check (about 5 µs together, against about 0.5 ms for a commit's fsync: docs/operations.md "Readiness").
 *
 * @returns `changed()`, undefined while both are the files opened, else what changed.
 */
export function watchFileIdentity(path: string): { changed(): FileChange | undefined } {
  const walPath = `${path}-wal`
  const database = identityOf(path)
  const wal = identityOf(walPath)
  return {
    changed() {
      const change = (opened: string | undefined, file: string) => {
        if (opened === undefined) return undefined
        const now = identityOf(file)
        return now === opened ? undefined : now === undefined ? ('removed' as const) : ('replaced' as const)
      }
      const result: Omit<FileChange, 'description'> = { database: change(database, path), wal: change(wal, walPath) }
      if (!result.database && !result.wal) return undefined
      const words = [
        result.database && `${basename(path)} was ${result.database}`,
        result.wal && `${basename(walPath)} was ${result.wal}`
      ].filter(Boolean)
      return { ...result, description: `${words.join(' and ')} while in use` }
    }
  }
}
