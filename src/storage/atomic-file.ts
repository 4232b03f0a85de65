import { closeSync, fsyncSync, openSync, renameSync, rmSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'

/** A temporary name beside `path` (same folder, so a rename moves it into place atomically). */
export function temporaryName(path: string): string {
  return join(dirname(path), `.${basename(path)}.${process.pid}.tmp`)
}

/** Flushes the file (or folder) at `path` to disk. */
export function syncPath(path: string): void {
  const fd = openSync(path, 'r')
  try {
    fsyncSync(fd)
  } finally {
    closeSync(fd)
  }
}

/**
 * Writes `file` complete or not at all, as backups, restores and exports do: `write(temporary)`
 * writes it under {@link temporaryName}; then it is flushed to disk, renamed over `file`, and the
 * folder is flushed too, so after a crash `file` is either the old one or the whole new one. When
 * `write` (or the move) fails, the temporary file is removed and `file` is left as it was.
 *
 * @returns what `write` returned.
 * @throws what `write` threw, or the file system's error.
 */
export async function replaceAtomically<T>(file: string, write: (temporary: string) => T | Promise<T>): Promise<T> {
  const temporary = temporaryName(file)
  try {
    const result = await write(temporary)
    syncPath(temporary)
    renameSync(temporary, file)
    syncPath(dirname(file))
    return result
  } catch (error) {
    rmSync(temporary, { force: true })
    throw error
  }
}
