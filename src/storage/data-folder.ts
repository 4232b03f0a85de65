import { chmodSync, closeSync, fchmodSync, mkdirSync, openSync, statSync } from 'node:fs'
import { dirname } from 'node:path'

/** The mode of every file the service writes in its data folder: the owner alone reads and writes (docs/operations.md "Files and permissions"). */
export const PRIVATE_FILE_MODE = 0o600

/** The mode of the folders the service creates for its data. */
export const PRIVATE_FOLDER_MODE = 0o700

/**
 * Creates the folder `path` and its missing parents, each with `mode` (e.g. 0o700) whatever the
 * umask, one level at a time; a folder that already exists is left as it is. Node's own `mkdirSync(path, { recursive:
 * true })` never returns when a parent exists but cannot hold folders (`/proc/nope`: the kernel
 * answers ENOENT, and Node retries the parent forever), so a bad `DATABASE_URL` would hang the
 * start instead of failing it.
 *
 * @throws the OS error (ENOENT, EACCES, ENOTDIR, …) of the first level that cannot be created.
 */
export function makeFolder(path: string, mode: number): void {
  try {
    if (statSync(path).isDirectory()) return
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
  }
  const parent = dirname(path)
  if (parent !== path) makeFolder(parent, mode)
  try {
    mkdirSync(path, { mode })
  } catch (error) {
    // Another process made it meanwhile: that is what was asked for.
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
    return
  }
  chmodSync(path, mode) // the umask took bits off the mode mkdir was given; this one is exact
}

/**
 * Creates the empty file `path` with mode 0600 whatever the umask (SQLite then writes into it,
 * and gives the `-wal` and `-shm` it makes beside it the same mode).
 *
 * @throws EEXIST when something is already at `path`, or the OS error.
 */
export function createPrivateFile(path: string): void {
  const fd = openSync(path, 'wx', PRIVATE_FILE_MODE)
  try {
    fchmodSync(fd, PRIVATE_FILE_MODE)
  } finally {
    closeSync(fd)
  }
}

/**
 * Sets mode 0600 on the file at `path` when it has another (a file left by an older release, or
 * made under another umask). Nothing at `path`, a file of another owner (EPERM) or a read-only
 * file system (EROFS) is left as it is: the service runs on what it can read.
 *
 * @throws any other OS error.
 */
export function keepPrivate(path: string): void {
  try {
    const stat = statSync(path, { throwIfNoEntry: false })
    if (stat !== undefined && (stat.mode & 0o777) !== PRIVATE_FILE_MODE) chmodSync(path, PRIVATE_FILE_MODE)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code !== 'ENOENT' && code !== 'EPERM' && code !== 'EROFS') throw error
  }
}
