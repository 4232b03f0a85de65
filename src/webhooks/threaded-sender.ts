import { Worker } from 'node:worker_threads'
import type { AttemptOutcome } from './sender.js'
import type { SenderReply, SenderRequest } from './webhook-sender-thread.js'

/**
 * The sender thread's script, beside this module and with its extension: `.js` when built (the
 * bundle's `webhook-sender-thread.js`, scripts/bundle.ts), `.ts` when this module runs from source
 * (the thread inherits the process's loader).
 */
const THREAD_URL = new URL(`./webhook-sender-thread${import.meta.url.slice(import.meta.url.lastIndexOf('.'))}`, import.meta.url)

/** What one attempt needs besides its request: the `WEBHOOK_*` settings and the loop's stop signal. */
export interface ThreadedSendOptions {
  /** `WEBHOOK_TIMEOUT`, in ms. */
  timeoutMs: number
  /** `WEBHOOK_ALLOW_PRIVATE`. */
  allowPrivate: boolean
  /** Cuts the attempt (the endpoint's loop stopping): it is answered as failed, `stopped`. */
  signal: AbortSignal
}

/**
 * The dispatcher's side of the webhook sender thread (`webhook-sender-thread.ts`): each attempt is
 * one message there and one back. The thread starts with the first attempt (a process with no
 * endpoint never starts it) and keeps the process alive only while an attempt is in flight. Should
 * it die, the attempts in flight fail (`the sender thread stopped`: retried on the schedule like any
 * failure) and the next attempt starts a new one.
 */
export class ThreadedSender {
  private thread: Worker | undefined
  private nextId = 1
  private readonly waiting = new Map<number, (outcome: AttemptOutcome) => void>()

  /** Sends one attempt of `endpointId` (docs/webhooks.md "Delivery"); never rejects. */
  send(endpointId: string, url: string, headers: Record<string, string>, body: string, options: ThreadedSendOptions): Promise<AttemptOutcome> {
    if (options.signal.aborted) return Promise.resolve(stopped('stopped'))
    const thread = this.started()
    const id = this.nextId++
    return new Promise((resolve) => {
      const abort = () => thread.postMessage({ kind: 'abort', id } satisfies SenderRequest)
      options.signal.addEventListener('abort', abort, { once: true })
      this.waiting.set(id, (outcome) => {
        options.signal.removeEventListener('abort', abort)
        resolve(outcome)
      })
      if (this.waiting.size === 1) thread.ref()
      thread.postMessage({ kind: 'send', id, endpointId, url, headers, body, timeoutMs: options.timeoutMs, allowPrivate: options.allowPrivate } satisfies SenderRequest)
    })
  }

  /** Closes the connections of `endpointId` (its loop stopped). */
  release(endpointId: string): void {
    this.thread?.postMessage({ kind: 'release', endpointId } satisfies SenderRequest)
  }

  /** Stops the thread; attempts still in flight fail as stopped. */
  async close(): Promise<void> {
    const thread = this.thread
    this.thread = undefined
    if (thread !== undefined) await thread.terminate()
    this.settleAll('stopped')
  }

  private started(): Worker {
    if (this.thread !== undefined) return this.thread
    const thread = new Worker(THREAD_URL)
    thread.unref()
    thread.on('message', ({ id, outcome }: SenderReply) => this.settle(id, outcome))
    const ended = () => {
      if (this.thread !== thread) return
      this.thread = undefined
      this.settleAll('the sender thread stopped')
    }
    thread.on('error', ended)
    thread.on('exit', ended)
    this.thread = thread
    return thread
  }

  private settle(id: number, outcome: AttemptOutcome): void {
    const resolve = this.waiting.get(id)
    if (resolve === undefined) return
    this.waiting.delete(id)
    if (this.waiting.size === 0) this.thread?.unref()
    resolve(outcome)
  }

  private settleAll(error: string): void {
    const waiting = [...this.waiting.values()]
    this.waiting.clear()
    for (const resolve of waiting) resolve(stopped(error))
  }
}

function stopped(error: string): AttemptOutcome {
  return { ok: false, httpStatus: null, error, retryAfterMs: null }
}
