/**
 * The search reader thread of a file-backed SQLite store: its own connection, on which it runs the
 * statements of the searches' walks by id (docs/search.md "How a page is read"), so that their
 * windows, each a scan of thousands of rows, never hold the main thread's event loop: point reads,
 * writes and other requests go on beside a broad search (docs/operations.md "Bounded reads").
 *
 * Messages in: `{ id, sql, parameters }`; out: `{ id, rows }`, or `{ id, error: { message, code } }`
 * when the statement failed. Statements are prepared once per SQL text (the most recent
 * {@link PREPARED_STATEMENTS}). Each statement is its own read transaction: it sees every commit
 * made before it started, by any connection (WAL).
 *
 * It runs at nice {@link READER_NICE} on Linux (thread-priority.ts): when searches and writes
 * together want more CPU than the machine has, the main thread (point reads, every answer) and
 * the writer thread (commits) run first, and a search's statements take what is left; on an idle
 * machine a search runs as fast as before (docs/operations.md "Bounded reads").
 */
import { parentPort, workerData } from 'node:worker_threads'
import type Database from 'better-sqlite3'
import { openConnection } from './sqlite-connection.js'
import { lowerThreadPriority } from '../../thread-priority.js'

/** The thread's nice value (thread-priority.ts): the webhook sender's, about a tenth of a request thread's CPU when both want all of it. */
const READER_NICE = 10

/** Most distinct statements kept prepared. */
const PREPARED_STATEMENTS = 64

/** A statement to run: `id` names its answer. */
export interface ReaderRequest {
  id: number
  sql: string
  parameters: readonly unknown[]
}

/** The answer to one {@link ReaderRequest}: its rows, or why it failed. */
export type ReaderAnswer = { id: number; rows: unknown[] } | { id: number; error: { message: string; code?: string } }

lowerThreadPriority(READER_NICE)
const db = openConnection((workerData as { path: string }).path, { fileMustExist: true })
const prepared = new Map<string, Database.Statement>()

parentPort!.on('message', ({ id, sql, parameters }: ReaderRequest) => {
  let answer: ReaderAnswer
  try {
    let statement = prepared.get(sql)
    if (!statement) {
      if (prepared.size >= PREPARED_STATEMENTS) prepared.delete(prepared.keys().next().value!)
      statement = db.prepare(sql)
      prepared.set(sql, statement)
    }
    answer = { id, rows: statement.all(...parameters) }
  } catch (error) {
    const failure = error as { message?: string; code?: string }
    answer = { id, error: { message: String(failure.message ?? error), ...(failure.code !== undefined && { code: failure.code }) } }
  }
  parentPort!.postMessage(answer)
})
