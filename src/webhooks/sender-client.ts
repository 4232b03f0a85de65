import { Worker } from 'node:worker_threads'
import type { DeliveryRun, SenderMessage, SenderReply, SentAttempt } from './sender-thread.js'

/**
 * The sender thread's script, beside this module and with its extension: `.js` when built, `.ts`
 * when this module itself runs from source (the thread inherits the process's loader).
 */
const SENDER_URL = new URL(`./sender-thread${import.meta.url.slice(import.meta.url.lastIndexOf('.'))}`, import.meta.url)

/** A run as {@link SenderThread.send} takes it (its id is the thread's to give). */
export type Run = Omit<DeliveryRun, 'id'>

/** A run being sent: its outcomes, and how to stop it early. */
export interface SendingRun {
  /** Every message sent, in order, up to and including the first that failed; never rejects. */
  readonly attempts: Promise<readonly SentAttempt[]>
  /** Lets the attempt in flight end and starts no other (the endpoint's settings changed). */
  finish(): void
}

/**
 * The dispatcher's side of the webhook sender thread (sender-thread.ts): each run of an
 * endpoint's deliveries is posted to the thread and its outcomes come back together. The thread
 * starts with the first run and again after it failed; a run in flight when it fails ends with
 * a failed attempt (retried on the schedule like any other).
 */
export class SenderThread {
  private worker: Worker | undefined
  /** Set by {@link close}: no thread is started again, and a late run ends at once as stopped. */
  private closed = false
  private nextId = 0
  private readonly waiting = new Map<number, (attempts: readonly SentAttempt[]) => void>()

  /**
   * Sends `run`'s messages in order, each signed as it leaves.
   *
   * @param signal cuts the attempt in flight and ends the run (the dispatcher stopping).
   */
  send(run: Run, signal: AbortSignal): SendingRun {
    if (this.closed) return { attempts: Promise.resolve([stopped('stopped')]), finish: () => {} }
    const id = this.nextId++
    const worker = this.thread()
    const attempts = new Promise<readonly SentAttempt[]>((resolve) => {
      const cancel = () => worker.postMessage({ cancel: id } satisfies SenderMessage)
      signal.addEventListener('abort', cancel, { once: true })
      this.waiting.set(id, (attempts) => {
        signal.removeEventListener('abort', cancel)
        resolve(attempts)
      })
      worker.postMessage({ send: { ...run, id } } satisfies SenderMessage)
    })
    return { attempts, finish: () => worker.postMessage({ finish: id } satisfies SenderMessage) }
  }

  /** Closes the endpoint's kept-alive connection (its loop stopped). */
  release(endpointId: string): void {
    this.worker?.postMessage({ release: endpointId } satisfies SenderMessage)
  }

  /** Stops the thread; runs still in flight end with a failed attempt. */
  async close(): Promise<void> {
    this.closed = true
    const worker = this.worker
    this.worker = undefined
    if (worker) await worker.terminate()
    this.failWaiting('stopped')
  }

  private thread(): Worker {
    if (this.worker) return this.worker
    const worker = new Worker(SENDER_URL)
    worker.on('message', ({ id, attempts }: SenderReply) => {
      const resolve = this.waiting.get(id)
      this.waiting.delete(id)
      resolve?.(attempts)
    })
    const ended = (reason: string) => {
      if (this.worker !== worker) return
      this.worker = undefined
      this.failWaiting(reason)
    }
    worker.on('error', (error) => ended(`the webhook sender thread failed: ${error.message}`))
    worker.on('exit', (code) => ended(`the webhook sender thread exited (${code})`))
    worker.unref()
    this.worker = worker
    return worker
  }

  private failWaiting(reason: string): void {
    const waiting = [...this.waiting.values()]
    this.waiting.clear()
    for (const resolve of waiting) resolve([stopped(reason)])
  }
}

/** A failed attempt that got no answer, for `reason`. */
function stopped(reason: string): SentAttempt {
  return { ok: false, httpStatus: null, error: reason, retryAfterMs: null, at: Date.now() }
}
