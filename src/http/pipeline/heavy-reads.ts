import type { FastifyReply, FastifyRequest } from 'fastify'
import { heavyReadLimit, type Config } from '../../config.js'
import { HttpError } from '../errors/http-error.js'
import { Messages } from '../messages.js'

/** The settings of the fair share: how many heavy reads at once, and how long one waits for its turn. */
export type HeavyReadSettings = Pick<Config, 'HEAVY_READS' | 'HEAVY_READ_WAIT' | 'WORKERS'>

/** `Retry-After` of a heavy read turned away, in seconds: the others' turns are short. */
export const HEAVY_READ_RETRY_AFTER_SECONDS = 1

/**
 * The fair share of one process (docs/operations.md "Bounded reads"): a heavy read (a search, a
 * whole list or export, a history; the routes say which requests are) runs only while fewer than
 * `HEAVY_READS` others do ({@link heavyReadLimit}). Beyond that it waits its turn, first come first served, for at most
 * `HEAVY_READ_WAIT` seconds, then answers 503 `Service unavailable` with `Retry-After: 1`. A
 * turn lasts until the answer is sent, a streamed one to its last byte, or its connection
 * closed. Point reads and writes never take a turn, so they never wait behind heavy reads.
 */
export class HeavyReads {
  private running = 0
  private readonly waiting: Array<() => void> = []
  private readonly limit: number
  private readonly waitMs: number

  constructor(settings: HeavyReadSettings) {
    this.limit = heavyReadLimit(settings)
    this.waitMs = settings.HEAVY_READ_WAIT * 1000
  }

  /** The heavy reads running now (each holding a turn). */
  get inFlight(): number {
    return this.running
  }

  /**
   * A `preHandler` hook: when `isHeavy(request)`, takes a turn for the request
   * (waiting for one), given back when its answer is done.
   *
   * @throws {HttpError} 503 `Service unavailable` with `Retry-After` when no turn came in time.
   */
  admit(isHeavy: (request: FastifyRequest) => boolean) {
    return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
      if (!isHeavy(request)) return
      if (gone(reply)) throw new HttpError(503, Messages.unavailable, { 'retry-after': String(HEAVY_READ_RETRY_AFTER_SECONDS) })
      // 'close' comes once the answer is sent (a stream to its end) or the connection is gone,
      // waiting or not: the turn, or the place in the queue, is given back then.
      const turn: { state: 'waiting' | 'running' | 'done'; leave: () => void } = { state: 'waiting', leave: () => {} }
      reply.raw.once('close', () => {
        if (turn.state === 'running') this.release()
        else turn.leave()
        turn.state = 'done'
      })
      await this.turn((cancel) => (turn.leave = cancel))
      // Closed as the turn came, or before this hook ran (no 'close' comes then): nothing to answer.
      if (turn.state === 'done' || gone(reply)) {
        turn.state = 'done'
        this.release()
        throw new HttpError(503, Messages.unavailable, { 'retry-after': String(HEAVY_READ_RETRY_AFTER_SECONDS) })
      }
      turn.state = 'running'
    }
  }

  /**
   * Resolves once a turn is taken; rejects with the 503 when none came within the wait.
   * `onQueued` is given the function that takes the request out of the queue (its connection closed).
   */
  private turn(onQueued: (cancel: () => void) => void): Promise<void> {
    if (this.running < this.limit) {
      this.running++
      return Promise.resolve()
    }
    return new Promise((resolve, reject) => {
      const granted = () => {
        clearTimeout(timer)
        resolve()
      }
      // Out of the queue with the 503: no turn came in time, or the client left (nothing is sent then).
      const leave = () => {
        const index = this.waiting.indexOf(granted)
        if (index >= 0) this.waiting.splice(index, 1)
        clearTimeout(timer)
        reject(new HttpError(503, Messages.unavailable, { 'retry-after': String(HEAVY_READ_RETRY_AFTER_SECONDS) }))
      }
      const timer = setTimeout(leave, this.waitMs)
      this.waiting.push(granted)
      onQueued(leave)
    })
  }

  /** Gives a turn back: to the longest waiting request, or free. */
  private release(): void {
    const next = this.waiting.shift()
    if (next) next()
    else this.running--
  }
}

/** True when the answer can no longer be sent: its connection closed (the client left). */
function gone(reply: FastifyReply): boolean {
  return reply.raw.destroyed
}
