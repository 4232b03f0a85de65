import type { Server } from 'node:http'
import type { Socket } from 'node:net'
import type { FastifyInstance, onRequestHookHandler } from 'fastify'

/** A connection watched by {@link enforceSendDeadline}. */
interface Watched {
  /** Bytes of the connection's writes completed (handed to the kernel) at the last check. */
  sent: number
  /** When its data was first seen waiting without progress (ms); undefined while it moves. */
  stalledSince?: number
  /** Set while an opted-out route's answer is in progress (see {@link SEND_DEADLINE_OPT_OUT}). */
  exempt: boolean
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** False takes the route out of the send deadline ({@link SEND_DEADLINE_OPT_OUT}). */
    sendDeadline?: boolean
  }
}

/**
 * The route option that takes a route's answers out of the send deadline: `config: { sendDeadline:
 * false }`. For routes whose answer is long-lived and handles its own slow readers (a stream of
 * events that a client may read rarely): while such an answer is in progress, its connection is
 * never dropped by {@link enforceSendDeadline}; once it ends the deadline applies again.
 */
export const SEND_DEADLINE_OPT_OUT = { sendDeadline: false } as const

/**
 * Drops connections whose client stopped taking what the service sends (docs/operations.md "Reliability and
 * security"): a connection with data waiting to be sent (Node's `writableLength` > 0: the kernel's
 * send buffer is full, so the client has not read for a while) that makes no progress for
 * `seconds` is destroyed. Progress is a write completing (handed to the kernel whole: the bytes
 * written minus those still waiting grew), or nothing waiting at a check. A slow reader therefore
 * holds a connection, its answer's buffers and open files (a static file's stream) for `seconds`
 * at most, however slowly it reads; a client that takes a 64 KiB piece of an answer every
 * `seconds` (about 2 KiB/s at 30 s) is never dropped, and a connection with nothing to send (idle,
 * or an answer still being prepared) is never dropped.
 *
 * One timer for all connections checks every quarter of `seconds` (at most every second), so a
 * stalled connection is dropped between `seconds` and 1.25 × `seconds` after it stalled.
 *
 * Routes opt out with {@link SEND_DEADLINE_OPT_OUT} in their options (an `onRoute` hook gives them
 * an `onRequest` hook that marks their connection exempt for the time of the answer). Call this
 * before any route is added.
 */
export function enforceSendDeadline(app: FastifyInstance, seconds: number): void {
  const server: Server = app.server
  const deadlineMs = seconds * 1000
  const watched = new Map<Socket, Watched>()
  server.on('connection', (socket: Socket) => {
    watched.set(socket, { sent: 0, exempt: false })
    socket.once('close', () => watched.delete(socket))
  })
  const check = () => {
    const now = Date.now()
    for (const [socket, state] of watched) {
      const waiting = socket.writableLength
      const sent = (socket.bytesWritten ?? 0) - waiting
      if (state.exempt || waiting === 0 || sent !== state.sent) {
        state.sent = sent
        state.stalledSince = undefined
      } else if (state.stalledSince === undefined) {
        state.stalledSince = now
      } else if (now - state.stalledSince >= deadlineMs) {
        socket.destroy()
      }
    }
  }
  const timer = setInterval(check, Math.min(1000, Math.ceil(deadlineMs / 4)))
  timer.unref()
  server.once('close', () => clearInterval(timer))

  const exemptWhileAnswering: onRequestHookHandler = (request, reply, done) => {
    const state = watched.get(request.raw.socket)
    if (state !== undefined) {
      state.exempt = true
      reply.raw.once('close', () => (state.exempt = false))
    }
    done()
  }
  app.addHook('onRoute', (route) => {
    if ((route.config as { sendDeadline?: boolean } | undefined)?.sendDeadline !== false) return
    route.onRequest = [exemptWhileAnswering, ...[route.onRequest ?? []].flat()]
  })
}
