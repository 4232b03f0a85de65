import { Worker } from 'node:worker_threads'
import type Database from 'better-sqlite3'
import type { ChangeLogRetention } from '../retention.js'
import { changeLogTrimDue, changeLogTrimmer } from './sqlite-change-log.js'
import { StorageUnavailableError } from '../contracts/database.js'
import { watchFileIdentity, type OpenedFiles } from './sqlite-file-identity.js'
import { groupCommit, toError, type WriteError, type WriteOp, type WriteOutcome } from './sqlite-group-commit.js'
import { fileRemovedError } from './sqlite-removed-file.js'

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

/** What the writer thread is given: {@link WriterOptions} and the files the main thread opened. */
export interface WriterStart extends WriterOptions {
  /** The writer thread must open these same files; when it does not, it tells `{ stale: true }`. */
  opened: OpenedFiles
}

/** A reply of the writer thread (see `sqlite-writer-thread.ts`). */
type WriterReply = { outcomes: WriteOutcome[] } | { failed: WriteError } | { removed: WriteError } | { stale: true }

/** How often the main thread checks the files while no writer thread runs, in ms (as the writer thread does). */
const IDLE_IDENTITY_CHECK_MS = 1000

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
 *
 * The writer thread (its own V8 isolate, about 18 MB and a quarter of a start's CPU time) is
 * started when it first has work: the first batch, or the change log's retention finding rows
 * due (checked on the main thread every `trimIntervalMs`, and at once). Until then the main
 * thread does what the writer thread does while no one writes: it checks every second that the
 * database file and its log are the ones opened, and once one was removed or replaced it saves
 * what was committed through its own connection (`fileRemovedError`) and refuses every later
 * write (docs/operations.md "Readiness"). A batch waits for the thread to start (Node queues
 * the messages), so order and durability are those of a thread started at once. A thread that
 * fails to start fails the writes waiting for it and every later one (500, the error in the
 * request's log line; `/readyz` 503).
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
  /** The writer thread, once started (a database file only). */
  private writer: Worker | undefined
  /** How to start it: undefined for an in-memory database or once started. */
  private start: (() => Worker) | undefined
  /** The main thread's checks while no writer thread runs: the files every second, the change log's retention. */
  private idleTimers: NodeJS.Timeout[] = []
  /** The timer of the change log's trim, for an in-memory database (a file's is on the writer thread). */
  private readonly trimTimer: NodeJS.Timeout | undefined
  /** The files the main thread opened, while no writer thread runs. */
  private readonly files: ReturnType<typeof watchFileIdentity> | undefined

  /**
   * @param options.path the database file, whose writer thread is started; `:memory:` commits on
   *   `db` (and keeps the retention there).
   * @param db the main thread's connection (used for commits only with `:memory:`).
   * @param onHealth told when writes start failing and when they succeed again.
   */
  constructor(
    private readonly options: WriterOptions,
    private readonly db: Database.Database,
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
    const files = watchFileIdentity(options.path)
    this.files = files
    const start: WriterStart = { ...options, opened: files.opened }
    this.start = () => {
      const writer = new Worker(WRITER_URL, { workerData: start })
      writer.on('message', (reply: WriterReply) =>
        'removed' in reply ? this.fileRemoved(reply.removed) : 'stale' in reply ? this.checkFiles(true) : this.committed(reply)
      )
      // Opening a file removed meanwhile throws there: what the main thread finds is then the reason.
      writer.on('error', (error) => this.checkFiles() ?? this.fail(error))
      writer.on('exit', (code) => this.fail(new Error(`the SQLite writer thread exited (${code})`)))
      writer.unref()
      return writer
    }
    const trimDue = changeLogTrimDue(db, options.retention)
    const startIfTrimDue = () => {
      try {
        if (trimDue()) this.startWriter()
      } catch {
        // The next round tries again; a failing retention never stops the writes.
      }
    }
    this.idleTimers = [
      setInterval(() => this.checkFiles(), IDLE_IDENTITY_CHECK_MS).unref(),
      setInterval(startIfTrimDue, options.trimIntervalMs).unref()
    ]
    startIfTrimDue()
  }

  /**
   * Starts the writer thread when it is not running yet (its own checks then replace the main
   * thread's); false when it cannot be: the files were found removed or replaced, or the queue
   * is closed or broken.
   */
  private startWriter(): boolean {
    if (this.writer) return true
    if (!this.start || this.removed || this.broken || this.checkFiles()) return false
    for (const timer of this.idleTimers) clearInterval(timer)
    this.idleTimers = []
    this.writer = this.start()
    this.start = undefined
    return true
  }

  /**
   * The main thread's check of the files while no writer thread runs (or when the writer thread
   * found other files than these): the first change found is handled as the writer thread does
   * ({@link fileRemovedError}, through `db`, which still has the files it opened).
   *
   * @param stale the writer thread opened other files: they were removed or replaced, found or not.
   * @returns the reason writes are refused, when they are.
   */
  private checkFiles(stale = false): Error | undefined {
    if (this.removed) return this.removed
    const change = this.files?.changed()
    if (!change && !stale) return undefined
    const error = change
      ? fileRemovedError(this.db, this.options.path, change)
      : { name: 'DatabaseFileRemoved', code: 'SQLITE_FILE_REMOVED', message: 'the SQLite database was removed or replaced before its writer thread opened it' }
    this.fileRemoved(error)
    return this.removed
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
    for (const timer of this.idleTimers) clearInterval(timer)
    this.idleTimers = []
    // Writes queued in this event-loop turn start the writer thread now; with none, it never starts.
    if (!this.writer && this.start && this.queue.length > 0) this.flush()
    if (!this.writer && this.start) {
      this.start = undefined
      this.broken = new Error('the store is closed')
      return
    }
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
    if (this.start && !this.startWriter()) {
      const reason = this.removed ?? this.broken!
      const batch = this.queue
      this.queue = []
      for (const job of batch) job.reject(reason)
      return
    }
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
  private committed(reply: Exclude<WriterReply, { removed: WriteError } | { stale: true }>): void {
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
