import type { OutgoingHttpHeaders } from 'node:http'
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { ChangeFeed, StartPoint } from '../../feed/change-feed.js'
import { RETRY_TEXT } from '../../feed/event-text.js'
import { FeedSubscriber } from '../../feed/subscriber.js'
import type { TokenLease } from '../../feed/token-lease.js'
import { HttpError } from '../../http/errors/http-error.js'
import { Messages } from '../../http/messages.js'

/** The content type of the change feed (HTML Living Standard, "Server-sent events"; always UTF-8). */
export const EVENT_STREAM_CONTENT_TYPE = 'text/event-stream'

/** What {@link changeFeedHandler} needs. */
export interface ChangeFeedRouteOptions {
  feed: ChangeFeed
  /** The lease of the request's token (expiry, revocation); empty without auth. */
  leaseOf: (authorization: string | undefined) => TokenLease
  /** Most bytes that may wait unsent to one subscriber before it is dropped (FEED_BUFFER_BYTES). */
  bufferBytes: number
}

type ChangesRequest = FastifyRequest<{ Querystring: { after?: string } }>

/** A `Last-Event-ID` that names a sequence number: digits only, as the feed sends them. */
const SEQ_TEXT = /^[0-9]{1,15}$/

/**
 * Where the stream starts (docs/change-feed.md "Change feed"): `Last-Event-ID` (a reconnection) wins, then
 * `?after=N` (a new subscriber that knows where it is), else from now.
 */
function startPoint(request: ChangesRequest): StartPoint {
  const header = request.headers['last-event-id']
  const lastEventId = (Array.isArray(header) ? header[0] : header)?.trim()
  if (lastEventId) return SEQ_TEXT.test(lastEventId) ? Number(lastEventId) : 'unknown'
  const after = request.query.after
  return after === undefined ? undefined : Number(after)
}

/**
 * GET /books/changes: the change feed as Server-Sent Events (docs/contract.md "Other
 * representations"). Authentication ran before (the same check as GET /books). Before the stream,
 * in the envelope: 401 `Invalid token` for a token already past its `exp` (accepted by the 30 s
 * clock leeway, but its stream would end at once: the client must get a new token rather than
 * reconnect in a loop); 503 `Service unavailable` when this process already has
 * FEED_MAX_SUBSCRIBERS streams, the token's subject already has FEED_MAX_STREAMS_PER_SUBJECT, or
 * it is stopping (docs/change-feed.md "Change feed"). Then the stream: the head, `retry:`, the changes from
 * the start point, live ones, a heartbeat; it ends when the token expires or is revoked, after
 * FEED_MAX_STREAM_AGE, when the service stops, or when the client does not keep up (dropped).
 */
export function changeFeedHandler(options: ChangeFeedRouteOptions) {
  const { feed, leaseOf, bufferBytes } = options
  return async function streamChanges(request: ChangesRequest, reply: FastifyReply) {
    const lease = leaseOf(request.headers.authorization)
    if (lease.expiresAt !== undefined && lease.expiresAt <= Date.now()) throw new HttpError(401, Messages.invalidToken)
    const place = feed.admit(lease.subject)
    if (place === undefined) throw new HttpError(503, Messages.unavailable)
    let added = false
    try {
      // "From now" is fixed before the head is sent: a change acknowledged after the client saw the
      // head has a greater number (numbers are given in order, at or after the commit), so it is
      // delivered. Resolving it later would race a write made as soon as the head arrives.
      const start = startPoint(request) ?? (await feed.lastSeq())
      const head: OutgoingHttpHeaders = {
        ...(reply.getHeaders() as OutgoingHttpHeaders),
        'content-type': EVENT_STREAM_CONTENT_TYPE,
        'cache-control': 'no-store',
        // Proxies that buffer answers (nginx) pass this one through as it comes.
        'x-accel-buffering': 'no'
      }
      if (request.method === 'HEAD') return reply.headers(head).code(200).send()
      reply.hijack()
      const response = reply.raw
      // The body runs until the connection closes (`Connection: close`), without chunked framing:
      // each batch of events is then one socket write of bytes shared by every subscriber.
      response.useChunkedEncodingByDefault = false
      response.writeHead(200, head)
      response.write(RETRY_TEXT)
      const subscriber = new FeedSubscriber(response, lease, bufferBytes, feed.counters)
      added = true
      try {
        await feed.add(subscriber, start, place)
      } catch (error) {
        // The head is sent: the only way left to say it failed is to end the stream (the client retries).
        request.log.warn({ err: error }, 'change feed: cannot start the stream')
        subscriber.end()
      }
    } finally {
      // A HEAD, or a start that failed before the stream: the place goes back now.
      if (!added) place.release()
    }
  }
}
