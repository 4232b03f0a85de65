/**
 * The webhook sender thread: sends the dispatcher's attempts ({@link sendAttempt}) off the event
 * loop that answers requests, so the requests' outgoing writes, their socket system calls and
 * the answers' parsing cost the request thread only one message each way (docs/webhooks.md
 * "Delivery"). It keeps one keep-alive agent pair per endpoint (one connection, one request in
 * flight: the dispatcher sends an endpoint's next change only once it has this one's outcome).
 *
 * Messages in ({@link SenderRequest}): `send` (answered `{ id, outcome }`), `abort` (the attempt is
 * cut and answered as stopped), `release` (the endpoint's connections are closed).
 */
import { parentPort } from 'node:worker_threads'
import { endpointAgents, sendAttempt, type AttemptOutcome } from './sender.js'

/** A message to the sender thread. */
export type SenderRequest =
  | {
      kind: 'send'
      /** The attempt's number in this thread's life, echoed in the answer. */
      id: number
      endpointId: string
      url: string
      headers: Record<string, string>
      body: string
      timeoutMs: number
      allowPrivate: boolean
    }
  | { kind: 'abort'; id: number }
  | { kind: 'release'; endpointId: string }

/** The sender thread's answer to a `send`. */
export interface SenderReply {
  readonly id: number
  readonly outcome: AttemptOutcome
}

const agents = new Map<string, ReturnType<typeof endpointAgents>>()
const inFlight = new Map<number, AbortController>()

parentPort!.on('message', (request: SenderRequest) => {
  switch (request.kind) {
    case 'send': {
      let endpointAgentPair = agents.get(request.endpointId)
      if (endpointAgentPair === undefined) agents.set(request.endpointId, (endpointAgentPair = endpointAgents()))
      const controller = new AbortController()
      inFlight.set(request.id, controller)
      void sendAttempt(request.url, request.headers, request.body, {
        timeoutMs: request.timeoutMs,
        allowPrivate: request.allowPrivate,
        agents: endpointAgentPair,
        signal: controller.signal
      }).then((outcome) => {
        inFlight.delete(request.id)
        parentPort!.postMessage({ id: request.id, outcome } satisfies SenderReply)
      })
      return
    }
    case 'abort':
      inFlight.get(request.id)?.abort()
      return
    case 'release': {
      const released = agents.get(request.endpointId)
      agents.delete(request.endpointId)
      released?.http.destroy()
      released?.https.destroy()
    }
  }
})
