import type { FastifyReply, FastifyRequest } from 'fastify'
import Type, { type Static } from 'typebox'
import { decodeHistoryCursor, encodeHistoryCursor } from '../../book/cursor.js'
import { parseBookId } from '../../book/id.js'
import { Book, BookParams } from '../../book/schema.js'
import { JSON_CONTENT_TYPE, envelopeOf } from '../../http/envelope.js'
import { HttpError } from '../../http/errors/http-error.js'
import { Messages } from '../../http/messages.js'
import { assertValidBody } from '../../http/pipeline/json-body.js'
import {
  errorResponse,
  etagHeader,
  invalidInputResponse,
  preconditionFailedResponse,
  successResponse,
  withHeaders
} from '../../http/api-document/response-schemas.js'
import { HISTORY_START, MAX_VERSION, type HistoryEntry } from '../../storage/contracts/book-history.js'
import type { BookStore } from '../../storage/contracts/book-store.js'
import type { BookReads } from '../../storage/contracts/read-replicas.js'
import { changeContextOf } from './change-context.js'
import { bookETag, ifMatchHolds } from './etag.js'
import { IfMatchHeaders } from './schemas.js'
import { QUERY_TEXT_PATTERN, limitParameter } from './list-query.js'
import { bookJson, envelopeBody, type PageReader } from './list-stream.js'
import { bookNotFound } from './load-for-write.js'
import { CommitPositionHeaders, commitPositionHeaderDocument, type ReadRouting } from './read-routing.js'

/** The query of `GET /book/{id}/history`: `limit` as on `GET /books`, `after` the opaque cursor of its `Link`. */
export const HistoryParameters = Type.Object(
  {
    limit: limitParameter(),
    after: Type.Optional(
      Type.String({ minLength: 1, maxLength: 4096, pattern: QUERY_TEXT_PATTERN, description: 'Start after this entry: the opaque cursor found in the Link header.' })
    )
  },
  { additionalProperties: true }
)
type HistoryParameters = Static<typeof HistoryParameters>

/** Body of `POST /book/{id}/restore`. */
export const RestoreBody = Type.Object(
  { version: Type.Integer({ minimum: 1, description: 'The version of the book\'s history to bring back (not a `deleted` entry).' }) },
  { additionalProperties: true, examples: [{ version: 2 }] }
)
type RestoreBody = Static<typeof RestoreBody>

/** One entry of a history, as the API document describes it and the route serializes it. */
export const HistoryEntrySchema = Type.Object(
  {
    version: Type.Integer({ minimum: 1, description: 'The book\'s version after this change; distinct within the book, growing with time.' }),
    operation: Type.Union([Type.Literal('created'), Type.Literal('updated'), Type.Literal('deleted'), Type.Literal('restored')]),
    at: Type.String({ format: 'date-time', description: 'When the change was committed: RFC 3339 UTC with milliseconds.' }),
    actor: Type.Union([Type.String(), Type.Null()], {
      description: 'Who made the change: the token\'s `sub`, the command (e.g. `book-service import`), or null.'
    }),
    book: Type.Union([Book, Type.Null()], { description: 'The book as it was after this change; null for `deleted`.' })
  },
  { additionalProperties: false }
)

const tags = ['Books']
const versionNotFound = () => new HttpError(404, Messages.versionNotFound)

/**
 * The route schemas of the history and the restore (docs/contract.md "History and restore"): what Fastify
 * validates and serializes, and what the API document says of each. The pipeline's statuses
 * (401, 403, 503, …) are added by src/http/api-document/pipeline-responses.ts.
 */
export function historyRouteSchemas() {
  return {
    history: {
      tags,
      operationId: 'getBookHistory',
      summary: 'Get the history of a book',
      description:
        'Every retained change of the book, newest first: its version, operation (`created`, `updated`, `deleted`, `restored`), ' +
        'time, actor and the book as it was after the change. A deleted book\'s history stays readable. `limit` pages it ' +
        '(with a `Link: <…>; rel="next"` header while more entries follow). How far back it goes: CHANGE_LOG_MAX_AGE and CHANGE_LOG_MAX_ROWS.',
      params: BookParams,
      querystring: HistoryParameters,
      headers: CommitPositionHeaders,
      response: {
        200: withHeaders(successResponse(Type.Array(HistoryEntrySchema), Messages.historyRetrieved, 'the entries asked for, newest first.'), {
          link: { type: 'string' as const, description: 'RFC 8288 `</book/{id}/history?…>; rel="next"`: only with `limit`, while more entries follow.' }
        }),
        400: invalidInputResponse('`limit` is not 1..1000, or `after` is not a cursor of a history.'),
        404: errorResponse(404, `\`${Messages.bookNotFound}\`: no history at all for this id (it never existed, or all of it was trimmed).`, [
          Messages.bookNotFound
        ])
      }
    },
    restore: {
      tags,
      operationId: 'restoreBook',
      summary: 'Restore a version of a book',
      description:
        'The book\'s title, author and year become what they were at `version`, as one new version (recorded as `restored`). ' +
        'A deleted book comes back under its id. `If-Match` is honoured as on PUT while the book exists, ignored for a deleted one. ' +
        'Checked in this order: token (401), role (403: readers may not), an id without history (404 `Book not found`), ' +
        'the body (400), the version (404 `Version not found`), the version\'s book against today\'s book rules (422 `Version cannot be restored`), `If-Match` (412).',
      params: BookParams,
      headers: IfMatchHeaders,
      body: RestoreBody,
      response: {
        200: withHeaders(successResponse(Book, Messages.restored, 'the book as stored now.'), { etag: etagHeader, ...commitPositionHeaderDocument }),
        400: invalidInputResponse('the body is not a JSON object with a positive integer `version`.'),
        404: errorResponse(
          404,
          `\`${Messages.bookNotFound}\`: no history at all for this id. \`${Messages.versionNotFound}\`: the version is not in the retained history, or is a \`deleted\` entry.`,
          [Messages.bookNotFound, Messages.versionNotFound]
        ),
        412: preconditionFailedResponse,
        422: errorResponse(
          422,
          `\`${Messages.versionNotRestorable}\`: the version's book fails today's book rules (a title or author of more than 500 characters, empty, or holding U+0000; a year outside -9999 to 9999), as a version another program wrote may; nothing is written.`,
          [Messages.versionNotRestorable]
        )
      }
    }
  }
}

/**
 * One history entry as JSON, exactly as {@link HistoryEntrySchema} serializes it: its five fields
 * in the schema's order, the book by `bookJson` (nothing else of a store row).
 */
export function historyEntryJson(entry: HistoryEntry): string {
  return `{"version":${entry.version},"operation":${JSON.stringify(entry.operation)},"at":${JSON.stringify(entry.at)},` +
    `"actor":${entry.actor === null ? 'null' : JSON.stringify(entry.actor)},"book":${entry.book === null ? 'null' : bookJson(entry.book)}}`
}

/**
 * Entries read per store call for a whole history (without `limit`): a page's JSON (~35 KiB for
 * typical entries) stays under V8's large-object size (128 KiB), so the page and its text are
 * short-lived young objects, made and dropped within the turn that reads them (the memory of 10
 * readers at once: docs/benchmarks.md "History").
 */
export const HISTORY_STREAM_PAGE_SIZE = 200

/**
 * Reads book `id`'s history from `before` on (newest first), {@link HISTORY_STREAM_PAGE_SIZE}
 * entries per call, as the answer takes them. A plain closure, not a generator: nothing keeps a
 * page alive once it is handed out (`envelopeBody`).
 *
 * @throws {HttpError} 404 `Book not found` when the id has no history.
 */
function historyPages(books: BookReads, id: number, before: number): PageReader<HistoryEntry> {
  let start: number | undefined = before
  return async () => {
    if (start === undefined) return undefined
    const page = await books.history(id, start, HISTORY_STREAM_PAGE_SIZE)
    if (!page) throw bookNotFound()
    start = page.next
    return page.entries
  }
}

type HistoryRequest = FastifyRequest<{ Params: Static<typeof BookParams>; Querystring: HistoryParameters }>
type RestoreRequest = FastifyRequest<{ Params: Static<typeof BookParams>; Body: RestoreBody }>

/**
 * The handlers of `GET /book/{id}/history` and `POST /book/{id}/restore` on `books`
 * (docs/contract.md "History and restore"): the history read where `routing` sends it, the restore
 * and its checks on `books`. Authentication and the role ran before them.
 */
export function historyHandlers(books: BookStore, routing: ReadRouting) {
  return {
    /**
     * GET /book/{id}/history: 400 for a bad `limit` or `after`, 404 when the id has no history,
     * else 200 with the entries newest first: one page and its `Link` with `limit`, every entry without.
     */
    async bookHistory(request: HistoryRequest, reply: FastifyReply) {
      const { limit, after } = request.query
      const size = limit === undefined ? undefined : Number(limit)
      let before = HISTORY_START
      if (after !== undefined) {
        const key = decodeHistoryCursor(after)
        if (key === undefined) throw new HttpError(400, Messages.invalidInput)
        before = key
      }
      const id = parseBookId(request.params.id)
      if (id === undefined) throw bookNotFound()
      const reads = await routing.readsFor(request)
      if (size !== undefined) {
        const page = await reads.history(id, before, size)
        if (!page) throw bookNotFound()
        if (page.next !== undefined) {
          const next = new URLSearchParams({ limit: String(size), after: encodeHistoryCursor(page.next) })
          reply.header('link', `</book/${id}/history?${next.toString()}>; rel="next"`)
        }
        return envelopeOf(200, Messages.historyRetrieved, page.entries)
      }
      // Without `limit`, every entry, read a page at a time and streamed like GET /books: memory
      // stays at about a page whatever the history's length. No history at all: 404 before the 200.
      const body = await envelopeBody(historyPages(reads, id, before), Messages.historyRetrieved, historyEntryJson)
      // Bytes or a stream of the serialized envelope: sent as is, not serialized again.
      return reply.type(JSON_CONTENT_TYPE).send(body as never)
    },

    /**
     * POST /book/{id}/restore, checked in the order of docs/contract.md "History and restore": 404
     * `Book not found` (no history), 400 (body), 404 `Version not found`, 412 (`If-Match`, while
     * the book exists); else 200 `Book restored successfully` with the book and its new `ETag`.
     */
    async restoreBook(request: RestoreRequest, reply: FastifyReply) {
      const id = parseBookId(request.params.id)
      if (id === undefined || !(await books.hasHistory(id))) throw bookNotFound()
      assertValidBody(request)
      const { version } = request.body
      if (version > MAX_VERSION) throw versionNotFound()
      // The tag is compared with the book as read now; the store then writes only while the book
      // still has that version (-1: a tag that names no version of it), checked in its transaction.
      const header = request.headers['if-match']
      let expectedVersion: number | undefined
      if (header !== undefined && String(header).trim() !== '*') {
        const current = await books.get(id)
        if (current) expectedVersion = ifMatchHolds(String(header), bookETag(current)) ? current.version : -1
      }
      const result = await books.restore(id, version, expectedVersion, changeContextOf(request))
      switch (result.outcome) {
        case 'noHistory':
          throw bookNotFound()
        case 'versionNotFound':
          throw versionNotFound()
        case 'unrestorable':
          throw new HttpError(422, Messages.versionNotRestorable)
        case 'stale':
          throw new HttpError(412, Messages.preconditionFailed)
        case 'restored': {
          reply.header('etag', bookETag(result.book))
          const { id: bookId, title, author, year } = result.book
          return envelopeOf(200, Messages.restored, { id: bookId, title, author, year })
        }
      }
    }
  }
}
