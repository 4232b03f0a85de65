/**
 * The writer thread of a file-backed SQLite store: its own connection (WAL, `synchronous=FULL`),
 * on which it runs each batch it is sent with {@link groupCommit} and answers with the outcomes
 * once the commit (and its fsync) returned. The main thread keeps serving requests meanwhile,
 * and gathers the next batch while this one is on its way to the disk.
 *
 * Messages in: `{ batch: WriteOp[] }`; out: `{ outcomes: WriteOutcome[] }`, `{ failed: WriteError }`
 * when the commit failed (nothing of that batch is stored), and `{ removed: WriteError }` once, when
 * a removed or replaced file is found (a batch in flight then also gets `failed`).
 *
 * It also keeps the change log's retention (docs/change-feed.md "Change log"): every `trimIntervalMs` it
 * removes the rows due in steps of at most `TRIM_BATCH` rows, one short transaction each, and
 * lets any batch that arrived meanwhile commit between two steps.
 *
 * Before each batch (and every second) it checks that the database file and its log are still
 * the ones it opened; once one was removed or replaced it saves what was committed and fails
 * every later batch (docs/operations.md "Readiness").
 *
 * It is started by the main thread on the first write or when retention has rows to remove, not
 * at start-up (sqlite-write-queue.ts). The files it opens must then be the ones the main thread
 * opened (`workerData.opened`): when they are not (removed or replaced in between), it commits
 * nothing, tells `{ stale: true }`, and the main thread, whose connection still has the files it
 * opened, saves what was committed and refuses the writes.
 */
import { parentPort, workerData } from 'node:worker_threads'
import { openConnection } from './sqlite-connection.js'
import { changeLogTrimmer } from './sqlite-change-log.js'
import { watchFileIdentity } from './sqlite-file-identity.js'
import { groupCommit, type WriteError, type WriteOp } from './sqlite-group-commit.js'
import { fileRemovedError } from './sqlite-removed-file.js'
import type { WriterStart } from './sqlite-write-queue.js'

/** How often the files are checked between batches, in ms: a removal is acted on even while no one writes. */
const IDENTITY_CHECK_MS = 1000

const options = workerData as WriterStart
const { path } = options
// An existing file only: the main thread created it; a file missing now was removed meanwhile.
const db = openConnection(path, { fileMustExist: true })
db.prepare('SELECT 1 FROM sqlite_master LIMIT 1').get() // opens the write-ahead log, so it is watched too
const commit = groupCommit(db)
const trim = changeLogTrimmer(db, options.retention)
const files = watchFileIdentity(path)
/** Set once the file or its log was found removed or replaced: every later batch fails with it. */
let removed: WriteError | undefined
if (files.opened.database !== options.opened.database || (options.opened.wal !== undefined && files.opened.wal !== options.opened.wal)) {
  // Not the files the main thread opened: this connection has nothing to save; the main thread does.
  removed = { name: 'DatabaseFileRemoved', code: 'SQLITE_FILE_REMOVED', message: 'the SQLite database was removed or replaced before its writer thread opened it' }
  parentPort!.postMessage({ stale: true })
}

/** One retention step; another follows after any message waiting (a batch) while rows are due. */
function trimStep(): void {
  if (removed) return
  try {
    if (trim()) setImmediate(trimStep)
  } catch {
    // The next round tries again; a failing retention never stops the writes.
  }
}
setInterval(trimStep, options.trimIntervalMs).unref()
trimStep() // at once: it may have been started because rows are due

/**
 * Checks the files before a batch (and on a timer): the first time one is found removed or
 * replaced, what was committed is saved ({@link keepCommittedData}) and the main thread is told;
 * an emptied database file is told as damaged (`SQLITE_NOTADB`).
 */
function checkFiles(): WriteError | undefined {
  if (removed) return removed
  const change = files.changed()
  if (!change) return undefined
  removed = fileRemovedError(db, path, change)
  parentPort!.postMessage({ removed })
  return removed
}

const timer = setInterval(checkFiles, IDENTITY_CHECK_MS)
timer.unref()

parentPort!.on('message', (message: { batch: WriteOp[] } | { close: true }) => {
  if ('close' in message) {
    clearInterval(timer)
    db.close()
    parentPort!.close()
    return
  }
  const failed = checkFiles()
  if (failed) return parentPort!.postMessage({ failed })
  try {
    parentPort!.postMessage({ outcomes: commit(message.batch) })
  } catch (error) {
    const { name, message: text, code } = error as Error & { code?: string }
    parentPort!.postMessage({ failed: { name, message: text, code } })
  }
})
