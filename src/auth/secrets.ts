import { randomBytes } from 'node:crypto'
import { readFileSync, writeFileSync } from 'node:fs'
import { keepPrivate, makeFolder } from '../storage/files.js'
import { dirname, join } from 'node:path'
import { engineOf } from '../storage/contracts/engine.js'

/**
 * The folder the service keeps its own files in: the SQLite file's folder, or `./data` with
 * PostgreSQL or an in-memory database.
 */
export function dataDirectory(databaseUrl: string): string {
  if (engineOf(databaseUrl) === 'postgres' || databaseUrl === ':memory:') return 'data'
  return dirname(databaseUrl)
}

/**
 * Returns the value kept in `file` under `directory`, generating it first when the file does not
 * exist: 32 random bytes, base64url, written with mode 0600 (folder 0700); an existing file is set
 * to mode 0600 when it has another.
 *
 * @returns `{ value, created }`; `created` is true when this call generated it.
 */
export function keptSecret(directory: string, file: string): { value: string; created: boolean } {
  const path = join(directory, file)
  try {
    const value = readFileSync(path, 'utf8').trim()
    keepPrivate(path) // one kept with another mode (another umask, copied by hand) is made 0600
    return { value, created: false }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
  }
  makeFolder(dirname(path), 0o700)
  const value = randomBytes(32).toString('base64url')
  try {
    writeFileSync(path, `${value}\n`, { mode: 0o600, flag: 'wx' })
  } catch (error) {
    // Another process created it first: use theirs.
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return { value: readFileSync(path, 'utf8').trim(), created: false }
    throw error
  }
  return { value, created: true }
}
