import type { FastifyRequest } from 'fastify'
import { parseBookId } from '../../book/id.js'
import { assertValidBody } from '../../http/pipeline/json-body.js'
import { HttpError } from '../../http/errors/http-error.js'
import { Messages } from '../../http/messages.js'
import type { BookStore, BookWriteOutcome, VersionedBook } from '../../storage/contracts/book-store.js'
import { bookETag, ifMatchHolds } from './etag.js'

/** 404 `Book not found`. */
export const bookNotFound = () => new HttpError(404, Messages.bookNotFound)
/** 412 `Precondition failed`. */
const preconditionFailed = () => new HttpError(412, Messages.preconditionFailed)

/** What a PUT or DELETE writes to, once its checks passed. */
export interface WriteTarget {
  id: number
  /**
   * The version the `If-Match` tag named: the write must be conditional on it (compared and
   * written in one statement). Undefined without `If-Match` or with `If-Match: *`.
   */
  version?: number
}

/** The request a write route receives: the `{id}` parameter and the headers. */
type WriteRequest = FastifyRequest<{ Params: { id: string } }>

/**
 * The load-for-write step of `PUT /book/{id}` and `DELETE /book/{id}`, in the contract's order
 * (docs/api.md "Large collections and concurrent edits"; the token was checked before, 401):
 * 1. the book exists, else 404 `Book not found` (an id that is not one is a missing book);
 * 2. `If-Match` names its current `ETag` (or is `*`), else 412 `Precondition failed`;
 * 3. with `checkBody` (PUT), the body is valid, else 400 `Invalid input`.
 * The book is read only when a check needs it: a tag to compare, or a PUT body that fails (to tell
 * 404 from 400). Otherwise the write itself tells 404 (`missing`), so a PUT or DELETE without a
 * tag is one statement.
 *
 * @returns the id, and the version to write conditionally on when a tag was given.
 * @throws HttpError 404, 412 or 400 as above.
 */
export async function loadForWrite(books: BookStore, request: WriteRequest, checkBody: boolean): Promise<WriteTarget> {
  const id = parseBookId(request.params.id)
  if (id === undefined) throw bookNotFound()
  const header = request.headers['if-match']
  const ifMatch = header === undefined ? undefined : String(header)
  const conditional = ifMatch !== undefined && ifMatch.trim() !== '*'
  let current: VersionedBook | undefined
  if (conditional || (checkBody && request.validationError !== undefined)) {
    current = await books.get(id)
    if (!current) throw bookNotFound()
    if (conditional && !ifMatchHolds(ifMatch, bookETag(current))) throw preconditionFailed()
  }
  if (checkBody) assertValidBody(request)
  return { id, version: conditional ? current!.version : undefined }
}

/**
 * The answer of a write made after {@link loadForWrite}: the outcome when the book was written;
 * 404 when the book was deleted since the load, 412 when it changed since the load.
 *
 * @throws HttpError 404 for `missing`; 412 for `stale`.
 */
export function written<T extends object>(outcome: BookWriteOutcome<T>): T {
  if (outcome.status === 'missing') throw bookNotFound()
  if (outcome.status === 'stale') throw preconditionFailed()
  return outcome
}
