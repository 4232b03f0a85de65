/** One scripted answer of {@link scriptedFetch}: a Response, or a throw (a network failure). */
export type ScriptedAnswer = () => Response | Promise<Response>

/** A request {@link scriptedFetch} received. */
export interface ScriptedRequest {
  url: string
  headers: Record<string, string>
  cache?: RequestInit['cache']
}

/**
 * A scripted service in place of `fetch`: each call takes the next answer, and once they run out
 * the connection stays open (no answer ever comes); the requests are recorded.
 */
export function scriptedFetch(answers: ScriptedAnswer[]): { fetch: typeof globalThis.fetch; requests: ScriptedRequest[] } {
  const requests: ScriptedRequest[] = []
  const fetch = (async (url: string, init: RequestInit) => {
    requests.push({ url, headers: init.headers as Record<string, string>, cache: init.cache })
    const answer = answers.shift()
    if (!answer) return new Promise<Response>(() => {})
    return answer()
  }) as unknown as typeof globalThis.fetch
  return { fetch, requests }
}

/** An answer in the service's envelope (docs/contract.md "Wire"). */
export const envelopeAnswer = (status: number, message: string): Response =>
  new Response(JSON.stringify({ status, message, data: null }), { status, headers: { 'content-type': 'application/json; charset=utf-8' } })

/** A `text/event-stream` answer that sends `text` and ends. */
export const eventStream = (text: string): Response => new Response(text, { status: 200, headers: { 'content-type': 'text/event-stream' } })

/** A `text/event-stream` answer that sends `text` and stays open. */
export const openEventStream = (text: string): Response =>
  new Response(new ReadableStream({ start: (controller) => controller.enqueue(new TextEncoder().encode(text)) }), {
    status: 200,
    headers: { 'content-type': 'text/event-stream' }
  })
