import { Worker } from 'node:worker_threads'
import type { BuiltQuery } from '../sql/list.js'
import type { ReaderAnswer, ReaderRequest } from './sqlite-reader-thread.js'

/** The reader thread's module beside this one: `.ts` under the tests' loader, `.js` when built. */
const READER_URL = new URL(`./sqlite-reader-thread${import.meta.url.slice(import.meta.url.lastIndexOf('.'))}`, import.meta.url)

/**
 * Runs the statements of the searches' walks by id on the reader thread (sqlite-reader-thread.ts),
 * off the event loop, for the SQLite store at `path` (a file). The thread is started on the first
 * statement, not at start-up, and keeps the process alive only while a statement is pending.
 * A thread that exits fails the pending statements; the next statement starts a new one.
 */
export class SqliteSearchReader {
  private worker: Worker | undefined
  private nextId = 1
  private readonly pending = new Map<number, { resolve: (rows: unknown[]) => void; reject: (error: Error) => void }>()

  constructor(private readonly path: string) {}

  /**
   * Runs `statement` on the reader thread's connection.
   *
   * @returns its rows.
   * @throws the statement's error (its `message`, and SQLite's `code`), or the thread's when it exits.
   */
  run<Row>(statement: BuiltQuery): Promise<Row[]> {
    const worker = this.started()
    const id = this.nextId++
    return new Promise<Row[]>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (rows: unknown[]) => void, reject })
      if (this.pending.size === 1) worker.ref()
      worker.postMessage({ id, sql: statement.sql, parameters: statement.parameters } satisfies ReaderRequest)
    })
  }

  /** Stops the thread; pending statements fail. */
  async close(): Promise<void> {
    const worker = this.worker
    this.worker = undefined
    await worker?.terminate()
  }

  private started(): Worker {
    if (this.worker) return this.worker
    const worker = new Worker(READER_URL, { workerData: { path: this.path } })
    worker.on('message', (answer: ReaderAnswer) => {
      const waiting = this.pending.get(answer.id)
      if (!waiting) return
      this.pending.delete(answer.id)
      if (this.pending.size === 0) worker.unref()
      if ('rows' in answer) waiting.resolve(answer.rows)
      else waiting.reject(Object.assign(new Error(answer.error.message), answer.error.code !== undefined && { code: answer.error.code }))
    })
    worker.on('error', (error) => this.failPending(error))
    worker.on('exit', (code) => {
      if (this.worker === worker) this.worker = undefined
      this.failPending(new Error(`the SQLite reader thread exited (${code})`))
    })
    worker.unref()
    this.worker = worker
    return worker
  }

  private failPending(error: Error): void {
    const waiting = [...this.pending.values()]
    this.pending.clear()
    for (const { reject } of waiting) reject(error)
  }
}
