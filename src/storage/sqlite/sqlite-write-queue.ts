import { Worker } from 'node:worker_threads'
import type Database from 'better-sqlite3'
import type { ChangeLogRetention } from '../retention.js'
import { changeLogTrimmer } from './sqlite-change-log.js'
import { StorageUnavailableError } from '../contracts/database.js'
import { groupCommit, toError, type WriteError, type WriteOp, type WriteOutcome } from './sqlite-group-commit.js'

interface WriteJob {
  write: WriteOp
  /** Brings the read cache in line with the write's result; runs only once it is committed. */
  committed: (value: never) => void
  resolve: (value: never) => void
  reject: (error: unknown) => void
}

/** What the writer thread is started with. */
export interface WriterOptions {
  /** The database file. */
  path: string
  /** The change log's retention, kept by the writer thread between group commits. */
  retention: ChangeLogRetention
  /** How often retention looks for rows to remove, in ms. */
  trimIntervalMs: number
}

/** A reply of the writer thread (see `sqlite-writer-thread.ts`). */
type WriterReply = { outcomes: WriteOutcome[] } | { failed: WriteError } | { removed: WriteError }

/**
 * SQLite result codes of a storage that cannot take writes right now (the disk is full or failing,
 * the file system read-only, the file gone): answered 503 `Service unavailable`, like an
 * unreachable PostgreSQL, so the client knows to retry (docs/operations.md "Readiness").
 */
const UNAVAILABLE_CODES = /^SQLITE_(IOERR|FULL|READONLY|CANTOPEN|FILE_REMOVED)/

/** The error a failed write is answered with: {@link StorageUnavailableError} for {@link UNAVAILABLE_CODES}. */
function answeredAs(error: Error & { code?: string }): Error {
  return error.code !== undefined && UNAVAILABLE_CODES.test(error.code)
    ? new StorageUnavailableError(error.message, { cause: error })
    : error
}

/** Told when writes start failing (with the reason) and when they succeed again (undefined). */
export type WriteHealthListener = (failure: Error | undefined) => void

/**
 * The writer thread's script, beside this module and with its extension: `.js` when built, `.ts`
 * when this module itself runs from source (the thread inherits the process's loader).
 */
const WRITER_URL = new URL(`./sqlite-writer-thread${import.meta.url.slice(import.meta.url.lastIndexOf('.'))}`, import.meta.url)

/**
 * The group commit of the SQLite store: the writes queued together run in one transaction
 * ({@link groupCommit}: each in its own savepoint when one fails) and share one fsync; each
 * promise resolves only after that commit returned, so no write is acknowledged before it is on
 * disk. For a database file, the commits run on a writer thread with its own connection
 * (`sqlite-writer-thread.ts`): while one batch is being committed and synced, the main thread keeps
 * serving requests and queues the next batch, which is sent the moment the previous commit
 * returns. Batches are committed one at a time, in order. An in-memory database (tests) commits
 * on the main thread, batching the writes of one event-loop turn.
 */
export class WriteQueue {
  private queue: WriteJob[] = []
  /** The batch the writer thread is committing (writer mode). */
  private inFlight: WriteJob[] | undefined
  private scheduled = false
  /** Set once the writer thread died (or the queue closed): every later write fails with it. */
  private broken: Error | undefined
  private idleWaiters: Array<() => void> = []
  private commits = 0
  /** The last commit's failure, until a commit succeeds: the store is not ready meanwhile. */
  private lastFailure: Error | undefined
  /** Set once the writer thread found the database file removed or replaced: for good. */
  private removed: Error | undefined
  private readonly commit: ((batch: WriteOp[]) => WriteOutcome[]) | undefined
  private readonly writer: Worker | undefined
  /** The timer of the change log's trim, for an in-memory database (a file's is on the writer thread). */
  private readonly trimTimer: NodeJS.Timeout | undefined

  /**
   * @param options.path the database file, whose writer thread is started; `:memory:` commits on
   *   `db` (and keeps the retention there).
   * @param db the main thread's connection (used for commits only with `:memory:`).
   * @param onHealth told when writes start failing and when they succeed again.
   */
  constructor(
    options: WriterOptions,
    db: Database.Database,
    private readonly onHealth: WriteHealthListener = () => {}
  ) {
    if (options.path === ':memory:') {
      this.commit = groupCommit(db)
      const trim = changeLogTrimmer(db, options.retention)
      this.trimTimer = setInterval(() => {
        while (trim());
      }, options.trimIntervalMs).unref()
      return
    }
    const writer = new Worker(WRITER_URL, { workerData: options })
    writer.on('message', (reply: WriterReply) => ('removed' in reply ? this.fileRemoved(reply.removed) : this.committed(reply)))
    writer.on('error', (error) => this.fail(error))
    writer.on('exit', (code) => this.fail(new Error(`the SQLite writer thread exited (${code})`)))
    writer.unref()
    this.writer = writer
  }

  /**
   * How many batches have been committed so far. It moves before any write of a batch is
   * answered, so a count taken after an acknowledged write already includes it.
   */
  get commitCount(): number {
    return this.commits
  }

  /**
   * Throws the reason writes cannot be made any more (the writer thread died, the database file
   * was removed), if any.
   */
  assertWritable(): void {
    if (this.removed) throw this.removed
    if (this.broken) throw this.broken
  }

  /** The failure of the last commit when it failed (none has succeeded since), else undefined. */
  get failing(): Error | undefined {
    return this.removed ?? this.lastFailure
  }

  /**
   * Queues a write for the next group commit; resolves with its result once committed, after
   * `committed(result)` has updated the read cache.
   */
  write<T>(write: WriteOp, committed: (value: T) => unknown): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      if (this.removed) return reject(this.removed)
      if (this.broken) return reject(this.broken)
      this.queue.push({ write, committed: committed as (value: never) => void, resolve: resolve as (value: never) => void, reject })
      if (!this.scheduled && !this.inFlight) {
        // Gather the writes of this event-loop turn into one batch.
        this.scheduled = true
        setImmediate(() => {
          this.scheduled = false
          this.flush()
        })
      }
    })
  }

  /** Finishes every queued and in-flight write, then stops the writer thread (closing its connection). */
  async close(): Promise<void> {
    clearInterval(this.trimTimer)
    if (!this.writer) return this.flush()
    while (!this.broken && (this.inFlight || this.queue.length > 0)) {
      await new Promise<void>((resolve) => this.idleWaiters.push(resolve))
    }
    if (this.broken) return
    const exited = new Promise((resolve) => this.writer!.once('exit', resolve))
    this.broken = new Error('the store is closed')
    this.writer.ref() // keep the process alive until the thread has closed its connection
    this.writer.postMessage({ close: true })
    await exited
  }

  /** Commits the queued writes as one batch: on the writer thread, or here for `:memory:`. */
  private flush(): void {
    if (this.inFlight || this.queue.length === 0 || this.broken) return
    const batch = this.queue
    this.queue = []
    if (this.writer) {
      this.inFlight = batch
      this.writer.ref() // a write in flight keeps the process alive until it is answered
      this.writer.postMessage({ batch: batch.map((job) => job.write) })
      return
    }
    let outcomes: WriteOutcome[]
    try {
      outcomes = this.commit!(batch.map((job) => job.write))
    } catch (error) {
      // The commit itself failed: nothing of the batch is durable.
      this.commitFailed(batch, error as Error)
      return
    }
    this.commitSucceeded(batch, outcomes)
  }

  /** A batch was committed: writes work again; settle each job. */
  private commitSucceeded(batch: WriteJob[], outcomes: WriteOutcome[]): void {
    this.commits++
    if (this.lastFailure && !this.removed) {
      this.lastFailure = undefined
      this.onHealth(undefined)
    }
    settle(batch, outcomes)
  }

  /** A batch's commit failed (nothing of it is stored): writes fail until one succeeds. */
  private commitFailed(batch: WriteJob[], error: Error): void {
    const answer = answeredAs(error)
    if (!this.lastFailure && !this.removed) this.onHealth(error)
    this.lastFailure = answer
    for (const job of batch) job.reject(answer)
  }

  /** The writer thread found the file removed or replaced: every later write fails with it, for good. */
  private fileRemoved(error: WriteError): void {
    if (this.removed) return
    this.removed = answeredAs(toError(error))
    this.onHealth(this.removed)
  }

  /** The writer thread answered the batch in flight: settle it, then send the next one at once. */
  private committed(reply: Exclude<WriterReply, { removed: WriteError }>): void {
    const batch = this.inFlight
    this.inFlight = undefined
    this.writer!.unref()
    if (batch) {
      if ('failed' in reply) this.commitFailed(batch, toError(reply.failed))
      else this.commitSucceeded(batch, reply.outcomes)
    }
    this.flush()
    if (!this.inFlight && this.queue.length === 0) this.wakeIdleWaiters()
  }

  /** The writer thread died: every pending and later write fails. */
  private fail(error: Error): void {
    if (this.broken) return
    this.broken = error
    for (const job of [...(this.inFlight ?? []), ...this.queue]) job.reject(error)
    this.inFlight = undefined
    this.queue = []
    this.wakeIdleWaiters()
  }

  private wakeIdleWaiters(): void {
    const waiters = this.idleWaiters
    this.idleWaiters = []
    for (const wake of waiters) wake()
  }
}

/** Settles each job with its outcome; a committed one first updates the read cache. */
function settle(batch: WriteJob[], outcomes: WriteOutcome[]): void {
  batch.forEach((job, index) => {
    const outcome = outcomes[index]!
    if (outcome.ok) {
      job.committed(outcome.value as never)
      job.resolve(outcome.value as never)
    } else job.reject(answeredAs(toError(outcome.error)))
  })
}
