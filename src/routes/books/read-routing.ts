import type { FastifyReply, FastifyRequest } from 'fastify'
import Type from 'typebox'
import type { BookStore } from '../../storage/contracts/book-store.js'
import { formatPosition, parsePosition, type BookReads, type ReadReplicas } from '../../storage/contracts/read-replicas.js'
import { changeContextOf } from './change-context.js'

/**
 * The header of read-your-writes on a database with read replicas (docs/api.md "Read your
 * writes"): a book write's answer carries the position it committed at; a read that sends it back
 * is served by a replica that has replayed that far, else by the primary.
 */
export const COMMIT_POSITION_HEADER = 'commit-position'

/** What the API document says of {@link COMMIT_POSITION_HEADER} on a book write's answer. */
export const commitPositionHeaderDocument = {
  [COMMIT_POSITION_HEADER]: {
    type: 'string' as const,
    description:
      'Only on a service that reads from replicas: the database position this write committed at (such as `0/16B3748`). ' +
      'Send it back as `Commit-Position` on later reads, through any instance, to read this write or something newer.'
  }
}

/** The {@link COMMIT_POSITION_HEADER} of a book read, as declared for validation and the API document: any text is accepted. */
export const commitPositionProperty = Type.Optional(
  Type.String({
    description:
      'A `Commit-Position` from a write\'s answer: on a service that reads from replicas, the read sees that write or something newer ' +
      '(a replica that has replayed that far, else the primary). Ignored otherwise; a value that is not a position reads from the primary.'
  })
)

/** The request headers of a book read other than GET /book/{id}: {@link commitPositionProperty}. */
export const CommitPositionHeaders = Type.Object({ [COMMIT_POSITION_HEADER]: commitPositionProperty }, { additionalProperties: true })

/**
 * How long an account that wrote through this process has its reads here served at or past its
 * last write's position, in ms (bounded stickiness: reads that do not send the header back). Each
 * process keeps its own (with `WORKERS`, each worker): across them only the header carries it.
 */
export const STICKY_MS = 60_000

/** Most accounts whose last write a process remembers for {@link STICKY_MS}; the oldest go first. */
export const MAX_STICKY_ACCOUNTS = 10_000

/**
 * Picks where each book read goes (docs/several-instances.md "Read replicas"), and gives each
 * book write's answer its {@link COMMIT_POSITION_HEADER}. Without replicas every read goes to
 * `books` and writes carry no position.
 */
export interface ReadRouting {
  /**
   * Where `request`'s reads go: at or past the later of its `Commit-Position` header and its
   * account's last write through this process (within {@link STICKY_MS}). A header that is not a
   * position is taken to ask for everything: the primary.
   */
  readsFor(request: FastifyRequest): BookReads
  /** After a book write answered 2xx: sets the answer's {@link COMMIT_POSITION_HEADER} and remembers the account's position; nothing without replicas. */
  afterWrite(request: FastifyRequest, reply: FastifyReply): Promise<void>
}

/** The {@link ReadRouting} of `books`, with `replicas` when the database has any. */
export function readRouting(books: BookStore, replicas: ReadReplicas | undefined, onPositionError: (error: unknown) => void): ReadRouting {
  if (replicas === undefined) {
    return { readsFor: () => books, afterWrite: async () => {} }
  }
  /** Account (the change log's actor) → its last write's position and when (ms since the epoch), oldest first. */
  const lastWrites = new Map<string, { position: bigint; at: number }>()
  return {
    readsFor(request) {
      let position: bigint | undefined
      const header = request.headers[COMMIT_POSITION_HEADER]
      if (header !== undefined) position = parsePosition(String(header)) ?? 2n ** 64n
      const actor = changeContextOf(request).actor
      const last = actor === null ? undefined : lastWrites.get(actor)
      if (last !== undefined) {
        if (Date.now() - last.at > STICKY_MS) lastWrites.delete(actor!)
        else if (position === undefined || last.position > position) position = last.position
      }
      return replicas.readsAfter(position)
    },
    async afterWrite(request, reply) {
      let position: bigint
      try {
        position = await replicas.commitPosition()
      } catch (error) {
        // The write committed: its answer stands, without the header (reads then go by the account's stickiness only).
        onPositionError(error)
        return
      }
      reply.header(COMMIT_POSITION_HEADER, formatPosition(position))
      const actor = changeContextOf(request).actor
      if (actor === null) return
      lastWrites.delete(actor)
      lastWrites.set(actor, { position, at: Date.now() })
      if (lastWrites.size > MAX_STICKY_ACCOUNTS) lastWrites.delete(lastWrites.keys().next().value!)
    }
  }
}
