/**
 * The writer thread of a file-backed SQLite store: its own connection (WAL, `synchronous=FULL`),
 * on which it runs each batch it is sent with {@link groupCommit} and answers with the outcomes
 * once the commit (and its fsync) returned. The main thread keeps serving requests meanwhile,
 * and gathers the next batch while this one is on its way to the disk.
 *
 * Messages in: `{ batch: WriteOp[] }`; out: `{ outcomes: WriteOutcome[] }` or
 * `{ failed: WriteError }` when the commit failed (nothing of that batch is stored).
 */
import { parentPort, workerData } from 'node:worker_threads'
import { openConnection } from './connection.js'
import { groupCommit, type WriteOp } from './group-commit.js'

const db = openConnection((workerData as { path: string }).path)
const commit = groupCommit(db)

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
