import { randomBytes } from 'node:crypto'
import { chmodSync, closeSync, existsSync, fchmodSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'
import { engineOf } from './contracts/engine.js'

// The service's files: its data folder and private files (mode 0700 and 0600 whatever the umask),
// and files written complete or not at all (backups, restores, exports).

/** The mode of every file the service writes in its data folder: the owner alone reads and writes (docs/operations.md "Files and permissions"). */
export const PRIVATE_FILE_MODE = 0o600

/** The mode of the folders the service creates for its data. */
export const PRIVATE_FOLDER_MODE = 0o700

/** The data folder cannot be had; its message is the one line the command line prints. */
export class DataFolderError extends Error {}

/**
 * The folder the service keeps its own files in (the generated secret and password, backups'
 * neighbours): the SQLite file's folder, or `./data` with PostgreSQL or an in-memory database.
 * The start-up's second step (docs/architecture.md "Paths through the code"): it is checked
 * before anything is written, so a wrong `DATABASE_URL` leaves no file behind.
 *
 * @throws {DataFolderError} when `DATABASE_URL` names an existing folder rather than a file in it.
 */
export function dataFolder(databaseUrl: string): string {
  if (engineOf(databaseUrl) === 'postgres' || databaseUrl === ':memory:') return 'data'
  if (statSync(databaseUrl, { throwIfNoEntry: false })?.isDirectory()) {
    throw new DataFolderError(`DATABASE_URL is a folder; name a file in it, e.g. ${join(databaseUrl, 'books.db')}`)
  }
  return dirname(databaseUrl)
}

/**
 * Returns the value kept in `file` under `folder`, generating it first when the file does not
 * exist: 32 random bytes, base64url, written with mode 0600 (folder 0700, created when missing);
 * an existing file is set to mode 0600 when it has another.
 *
 * @returns `{ value, created }`; `created` is true when this call generated it.
 * @throws the OS error when the folder or file cannot be read, created or written.
 */
export function keptValue(folder: string, file: string): { value: string; created: boolean } {
  const path = join(folder, file)
  try {
    const value = readFileSync(path, 'utf8').trim()
    keepPrivate(path) // one kept with another mode (another umask, copied by hand) is made 0600
    return { value, created: false }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
  }
  makeFolder(folder, PRIVATE_FOLDER_MODE)
  const value = randomBytes(32).toString('base64url')
  try {
    writeFileSync(path, `${value}\n`, { mode: PRIVATE_FILE_MODE, flag: 'wx' })
  } catch (error) {
    // Another process created it first: use theirs.
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return { value: readFileSync(path, 'utf8').trim(), created: false }
    throw error
  }
  return { value, created: true }
}

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
