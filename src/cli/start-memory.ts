import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'

/** How long after it listens the process waits before {@link releaseStartMemory}'s collection, in milliseconds. */
export const START_MEMORY_DELAY_MS = 500

/** Where {@link releaseStartMemory} says what it gave back (the app's pino logger fits). */
export interface StartMemoryLog {
  debug(fields: object, message: string): void
}

/** V8's collection function, with the options of its `gc` extension. */
type Collect = (options: { type: 'major'; execution: 'sync'; flavor: 'last-resort' }) => void

/**
 * Gives back the memory the start-up used and no longer needs, once, {@link START_MEMORY_DELAY_MS}
 * after the server listens (docs/operations.md "Operating it", memory after the start): one memory-reducing full collection.
 *
 * Why: loading and compiling the service, its schemas and its statements allocates far more than
 * stays live, and V8 grows its young generation to hold it. V8 shrinks its heap only during a
 * collection, and an idle process allocates nothing, so nothing would ever start one: the start's
 * peak stays resident (13-18 MB of a start's RSS on Node.js 24). The `last-resort`
 * flavour is the collection V8 runs under memory pressure: it also shrinks the young generation
 * and releases emptied pages. It takes ~30 ms of the main thread once; requests arriving meanwhile
 * wait that long. Under load afterwards the young generation grows again as the load needs.
 *
 * Node.js offers the collection function only with `--expose-gc`; the flag is set for the moment
 * it takes to fetch the function from a new context and is then unset, so no other context
 * (worker threads started later included) gets a global `gc`.
 *
 * `log.debug` receives `rssBefore` and `rssAfter` in bytes and the collection's `milliseconds`, or
 * `err` when the collection could not run. Raises nothing: the timer does not keep the process
 * alive, and a Node.js whose `gc` refuses the options runs on as it is (the collection saves
 * memory; nothing depends on it).
 */
export function releaseStartMemory(log: StartMemoryLog): void {
  setTimeout(() => {
    try {
      const rssBefore = process.memoryUsage.rss()
      const started = performance.now()
      collectionFunction()({ type: 'major', execution: 'sync', flavor: 'last-resort' })
      log.debug(
        { rssBefore, rssAfter: process.memoryUsage.rss(), milliseconds: Math.round(performance.now() - started) },
        'start-up memory released'
      )
    } catch (error) {
      // Nothing given back on this Node.js: the process runs as it would have without it.
      log.debug({ err: error }, 'start-up memory not released')
    }
  }, START_MEMORY_DELAY_MS).unref()
}

function collectionFunction(): Collect {
  setFlagsFromString('--expose-gc')
  try {
    return runInNewContext('gc') as Collect
  } finally {
    setFlagsFromString('--no-expose-gc')
  }
}
