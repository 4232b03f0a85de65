/**
 * The webhook sender thread: it sends the dispatcher's delivery attempts (dispatcher.ts), so the
 * HTTP requests to the receivers (most of a delivery's cost: the request, its write to the
 * socket, the answer) do not take the event loop that answers the service's own requests.
 *
 * The dispatcher hands it a run: the next changes of one endpoint, in order. The thread sends
 * them one after the other on the endpoint's kept-alive connection, each signed as it leaves,
 * and stops at the first failure; so an endpoint's deliveries follow each other at the speed of
 * its answers, without a round trip through the main thread between two of them.
 *
 * On Linux it runs at a lower scheduling priority than the rest of the process (nice
 * {@link SENDER_NICE}, this thread only): when the machine has no CPU to spare, requests are
 * answered first and deliveries wait; otherwise the thread takes what is idle.
 *
 * Messages in: {@link SenderMessage}; out: {@link SenderReply}, one per run, once it ended.
 */
import { parentPort } from 'node:worker_threads'
import { endpointAgents, sendAttempt, type AttemptOutcome } from './sender.js'
import { signatureHeader } from './signature.js'
import { lowerThreadPriority } from '../thread-priority.js'

/** The thread's nice value: at 10 it gets about a tenth of the CPU a request-serving thread gets when both want all of it. */
const SENDER_NICE = 10

/** The changes of one endpoint to send in order, as the dispatcher asks for them. */
export interface DeliveryRun {
  /** The run's number in this process, for its reply, `cancel` and `finish`. */
  readonly id: number
  /** The endpoint's id: its attempts share one kept-alive connection. */
  readonly endpointId: string
  readonly url: string
  /** The secrets that sign, the newest first (signature.ts). */
  readonly secrets: readonly string[]
  /** Each attempt's limit, in ms. */
  readonly timeoutMs: number
  readonly allowPrivate: boolean
  /** The messages, in the order they must arrive. */
  readonly messages: readonly { readonly webhookId: string; readonly body: string }[]
}

/** An attempt's outcome and when it ended (ms since the epoch). */
export type SentAttempt = AttemptOutcome & { readonly at: number }

/**
 * What the thread is told: send a run; cut a run's attempt in flight and stop it (`cancel`: the
 * dispatcher stopping); let the attempt in flight end and start no other (`finish`: the
 * endpoint's settings changed); close an endpoint's connection (`release`).
 */
export type SenderMessage = { send: DeliveryRun } | { cancel: number } | { finish: number } | { release: string }

/** A run's outcomes, in order: every message sent up to and including the first that failed. */
export interface SenderReply {
  readonly id: number
  readonly attempts: readonly SentAttempt[]
}

lowerThreadPriority(SENDER_NICE)

const agents = new Map<string, ReturnType<typeof endpointAgents>>()
const running = new Map<number, { controller: AbortController; finishing: boolean }>()

async function send(run: DeliveryRun): Promise<SentAttempt[]> {
  let connection = agents.get(run.endpointId)
  if (connection === undefined) {
    connection = endpointAgents()
    agents.set(run.endpointId, connection)
  }
  const state = { controller: new AbortController(), finishing: false }
  running.set(run.id, state)
  const attempts: SentAttempt[] = []
  try {
    for (const { webhookId, body } of run.messages) {
      if (state.finishing || state.controller.signal.aborted) break
      const timestamp = Math.floor(Date.now() / 1000)
      const headers = {
        'content-type': 'application/json',
        'webhook-id': webhookId,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': signatureHeader(run.secrets, webhookId, timestamp, body),
        'user-agent': 'book-service-webhooks'
      }
      const outcome = await sendAttempt(run.url, headers, body, {
        timeoutMs: run.timeoutMs, allowPrivate: run.allowPrivate, agents: connection, signal: state.controller.signal
      })
      attempts.push({ ...outcome, at: Date.now() })
      if (!outcome.ok) break
    }
  } finally {
    running.delete(run.id)
  }
  return attempts
}

parentPort!.on('message', (message: SenderMessage) => {
  if ('send' in message) {
    void send(message.send).then((attempts) => parentPort!.postMessage({ id: message.send.id, attempts } satisfies SenderReply))
  } else if ('cancel' in message) running.get(message.cancel)?.controller.abort()
  else if ('finish' in message) {
    const state = running.get(message.finish)
    if (state) state.finishing = true
  } else {
    const released = agents.get(message.release)
    agents.delete(message.release)
    released?.http.destroy()
    released?.https.destroy()
  }
})
