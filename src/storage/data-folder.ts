import { mkdirSync, statSync } from 'node:fs'
import { dirname } from 'node:path'

/**
 * Creates the folder `path` and its missing parents, each with `mode` (e.g. 0o700), one level at a
 * time; a folder that already exists is left as it is. Node's own `mkdirSync(path, { recursive:
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
  }
}
