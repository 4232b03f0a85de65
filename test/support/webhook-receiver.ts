import { createServer, type IncomingHttpHeaders, type Server } from 'node:http'
import { Webhook } from 'standardwebhooks'

/** One request the receiver got, verified by the Standard Webhooks library as a receiver would. */
export interface ReceivedWebhook {
  headers: IncomingHttpHeaders
  body: string
  /** The body parsed, when the signature verified with one of the secrets; undefined otherwise. */
  payload?: { type: string; timestamp: string; data: { seq: number; id: number; book: unknown } }
  /** The status answered. */
  status: number
}

/** A real HTTP receiver on 127.0.0.1 (loopback only), as a system around the service would run. */
export interface WebhookReceiver {
  url: string
  received: ReceivedWebhook[]
  /** The secrets it verifies with (any one verifying is enough). */
  secrets: string[]
  /**
   * What it answers to each request: a status and headers (default 204), after `delayMs` (a slow
   * receiver), or never ('hang'); the request's index is given.
   */
  respond: (index: number, request: ReceivedWebhook) => { status: number; headers?: Record<string, string>; delayMs?: number } | 'hang'
  /** Resolves once `predicate` holds over what was received (polled), or rejects after `timeoutMs`. */
  waitFor(predicate: (received: ReceivedWebhook[]) => boolean, timeoutMs?: number): Promise<void>
  close(): Promise<void>
}

/** Starts a {@link WebhookReceiver} on 127.0.0.1 and a free port, under `path`. */
export async function startReceiver(path = '/hooks'): Promise<WebhookReceiver> {
  const hanging = new Set<() => void>()
  const receiver: WebhookReceiver = {
    url: '',
    received: [],
    secrets: [],
    respond: () => ({ status: 204 }),
    async waitFor(predicate, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs
      while (!predicate(receiver.received)) {
        if (Date.now() > deadline) throw new Error(`receiver: condition not met in ${timeoutMs} ms; got ${receiver.received.length} requests`)
        await new Promise((resolve) => setTimeout(resolve, 25))
      }
    },
    async close() {
      for (const release of hanging) release()
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
    }
  }
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString()
      const entry: ReceivedWebhook = { headers: request.headers, body, status: 0 }
      for (const secret of receiver.secrets) {
        try {
          entry.payload = new Webhook(secret).verify(body, request.headers as Record<string, string>) as ReceivedWebhook['payload']
          break
        } catch {
          // not this secret
        }
      }
      const answer = receiver.respond(receiver.received.length, entry)
      receiver.received.push(entry)
      if (answer === 'hang') {
        hanging.add(() => response.destroy())
        return
      }
      entry.status = answer.status
      if (answer.delayMs === undefined) response.writeHead(answer.status, answer.headers).end()
      else setTimeout(() => response.writeHead(answer.status, answer.headers).end(), answer.delayMs)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  receiver.url = `http://127.0.0.1:${(server.address() as { port: number }).port}${path}`
  return receiver
}

/** The verified deliveries' change numbers, in the order they arrived (successful answers only). */
export function deliveredSeqs(received: readonly ReceivedWebhook[]): number[] {
  return received.filter((entry) => entry.payload !== undefined && entry.status >= 200 && entry.status < 300).map((entry) => entry.payload!.data.seq)
}
