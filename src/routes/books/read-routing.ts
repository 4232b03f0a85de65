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
 * Picks where each book read goes (docs/several-instances.md "Read replicas"), and gives each
 * book write's answer its {@link COMMIT_POSITION_HEADER}. Without replicas every read goes to
 * `books` and writes carry no position.
 */
export interface ReadRouting {
  /**
   * Where `request`'s reads go: at or past the later of its `Commit-Position` header and its
   * account's last write through any instance in the last minute. A header that is not a position
   * is taken to ask for everything: the primary. Without replicas, the store itself, at once.
   */
  readsFor(request: FastifyRequest): BookReads | Promise<BookReads>
  /** After a book write answered 2xx: sets the answer's {@link COMMIT_POSITION_HEADER} and announces the account's write; nothing without replicas. */
  afterWrite(request: FastifyRequest, reply: FastifyReply): Promise<void>
}

/** The {@link ReadRouting} of `books`, with `replicas` when the database has any. */
export function readRouting(books: BookStore, replicas: ReadReplicas | undefined, onPositionError: (error: unknown) => void): ReadRouting {
  if (replicas === undefined) {
    return { readsFor: () => books, afterWrite: async () => {} }
  }
  return {
    readsFor(request) {
      const header = request.headers[COMMIT_POSITION_HEADER]
      const position = header === undefined ? undefined : (parsePosition(String(header)) ?? 2n ** 64n)
      return replicas.readsFor(changeContextOf(request).actor, position)
    },
    async afterWrite(request, reply) {
      try {
        reply.header(COMMIT_POSITION_HEADER, formatPosition(await replicas.commitPosition(changeContextOf(request).actor)))
      } catch (error) {
        // The write committed: its answer stands, without the header (and unannounced: the account's
        // reads through other instances may then come from a replica behind it).
        onPositionError(error)
      }
    }
  }
}
