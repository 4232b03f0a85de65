import { closeSync, existsSync, fsyncSync, openSync, renameSync, rmSync, statSync } from 'node:fs'
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
 * @throws what `write` threw, or the file system's error, its message naming `file` (never the
 *   temporary name): `cannot write FILE: there is no folder DIR` when the folder is missing.
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
    throw namingDestination(error, temporary, file)
  }
}

/**
 * `error` as the person who named `file` should read it: the temporary name is theirs to never
 * see, so it is replaced by `file`, and a folder that does not exist is said so. The error keeps
 * its class (callers tell a BackupError from others).
 */
function namingDestination(error: unknown, temporary: string, file: string): unknown {
  if (!(error instanceof Error)) return error
  const folder = dirname(file)
  const code = (error as NodeJS.ErrnoException).code
  if ((code === 'ENOENT' || code === 'ENOTDIR') && !(existsSync(folder) && statSync(folder).isDirectory())) {
    error.message = `cannot write ${file}: there is no folder ${folder}`
  } else {
    error.message = error.message.replaceAll(temporary, file)
  }
  return error
}
