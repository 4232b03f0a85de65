/**
 * The writer thread of a file-backed SQLite store: its own connection (WAL, `synchronous=FULL`),
 * on which it runs each batch it is sent with {@link groupCommit} and answers with the outcomes
 * once the commit (and its fsync) returned. The main thread keeps serving requests meanwhile,
 * and gathers the next batch while this one is on its way to the disk.
 *
 * Messages in: `{ batch: WriteOp[] }`; out: `{ outcomes: WriteOutcome[] }` or
 * `{ failed: WriteError }` when the commit failed (nothing of that batch is stored).
 *
 * It also keeps the change log's retention (README "Change log"): every `trimIntervalMs` it
 * removes the rows due in steps of at most `TRIM_BATCH` rows, one short transaction each, and
 * lets any batch that arrived meanwhile commit between two steps.
 */
import { parentPort, workerData } from 'node:worker_threads'
import { openConnection } from './connection.js'
import { changeLogTrimmer } from './change-log.js'
import { groupCommit, type WriteOp } from './group-commit.js'
import type { WriterOptions } from './write-queue.js'

const options = workerData as WriterOptions
const db = openConnection(options.path)
const commit = groupCommit(db)
const trim = changeLogTrimmer(db, options.retention)

/** One retention step; another follows after any message waiting (a batch) while rows are due. */
function trimStep(): void {
  try {
    if (trim()) setImmediate(trimStep)
  } catch {
    // The next round tries again; a failing retention never stops the writes.
  }
}
setInterval(trimStep, options.trimIntervalMs).unref()

parentPort!.on('message', (message: { batch: WriteOp[] } | { close: true }) => {
  if ('close' in message) {
    db.close()
    parentPort!.close()
    return
  }
  try {
    parentPort!.postMessage({ outcomes: commit(message.batch) })
  } catch (error) {
    const { name, message: text, code } = error as Error & { code?: string }
    parentPort!.postMessage({ failed: { name, message: text, code } })
  }
})
