import { sha256 } from '@noble/hashes/sha2.js'
import { bytesToHex } from '@noble/hashes/utils.js'
import { BookServiceError, type BookClient } from '../../../src/client/index.js'
import { runLimited } from '../api/run-limited.js'
import type { ImportRow } from './import-check.js'

/** How many `POST /book` requests an import keeps in flight. */
export const IMPORT_CONCURRENCY = 4

/**
 * The prefix of every `Idempotency-Key` of an import of `content` (the file's bytes): its SHA-256,
 * so the same file gives the same keys, and a re-run after a failure is answered with the first
 * answers instead of creating the books again (docs/web-page.md "Web page").
 * Computed in JavaScript: `crypto.subtle` exists only on HTTPS or localhost pages.
 */
export function importKeyPrefix(content: Uint8Array): string {
  return `import-${bytesToHex(sha256(content))}`
}

/** The key of one row: the file's prefix and the row's line. */
export function rowKey(prefix: string, line: number): string {
  return `${prefix}-line-${line}`
}

/**
 * What an import did: how many books it stored, how many rows were stored already (by an earlier
 * run of the same file: their keys' answers replayed), which rows the service refused and which
 * were not sent.
 */
export interface ImportOutcome {
  stored: number
  alreadyStored: number
  refused: { line: number; message: string }[]
  /** Lines not stored because the service could not be reached or answered 5xx, 409, 429 or 401. */
  unsent: number[]
}

/** The session ended during the import: the rows after it are not sent. */
class Stopped extends Error {}

/** Statuses after which the same request may succeed later: not a refusal of the row. */
function retryable(error: unknown): boolean {
  return error instanceof Stopped || !(error instanceof BookServiceError) || error.status >= 500 || [401, 408, 409, 429].includes(error.status)
}

/**
 * Sends each row as `POST /book` with its `Idempotency-Key`, {@link IMPORT_CONCURRENCY} at a
 * time, reporting progress after each answer. A 401 (the session ended) stops the import: the
 * rows not yet sent are reported as unsent.
 */
export async function runImport(
  client: BookClient,
  rows: ImportRow[],
  keyPrefix: string,
  onProgress: (done: number, total: number) => void
): Promise<ImportOutcome> {
  const outcome: ImportOutcome = { stored: 0, alreadyStored: 0, refused: [], unsent: [] }
  let done = 0
  let stopped = false
  const results = await runLimited(rows, IMPORT_CONCURRENCY, async (row) => {
    if (stopped) throw new Stopped()
    try {
      return await client.createBookOnce(row.book, rowKey(keyPrefix, row.line))
    } catch (error) {
      if (error instanceof BookServiceError && error.status === 401) stopped = true
      throw error
    } finally {
      onProgress(++done, rows.length)
    }
  })
  results.forEach((result, index) => {
    const { line } = rows[index]!
    if (result.status === 'fulfilled') outcome[result.value.replayed ? 'alreadyStored' : 'stored']++
    else if (retryable(result.reason)) outcome.unsent.push(line)
    else outcome.refused.push({ line, message: (result.reason as BookServiceError).message })
  })
  return outcome
}
