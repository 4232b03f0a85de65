import Type from 'typebox'
import { Book, BookInput, BookParams, BookPatch } from '../../book/schema.js'
import { publishedAs } from '../../book/parameter-types.js'
import { Messages } from '../../http/messages.js'
import {
  bookNotFoundResponse,
  errorResponse,
  invalidInputResponse,
  etagHeader,
  notModifiedResponse,
  preconditionFailedResponse,
  successResponse,
  withHeaders
} from '../../http/api-document/response-schemas.js'
import { CreateBookHeaders, replayedHeaderDocument } from './idempotency.js'
import { ListParameters } from './list-query.js'
import { CommitPositionHeaders, commitPositionHeaderDocument, commitPositionProperty } from './read-routing.js'

/** The `ETag` header as the API document shows it. */
const etagHeaders = { etag: etagHeader }

/**
 * The `If-Match` request header of the writes on a book (PUT, DELETE, restore): declared so that
 * typed clients may send it; any text is accepted (`handlers.ts` and `etag.ts` read it).
 */
export const IfMatchHeaders = Type.Object(
  {
    'if-match': Type.Optional(
      Type.String({ description: 'Write only while the book still has this `ETag` (or any of a list; `*`: any); else 412 and nothing changes.' })
    )
  },
  { additionalProperties: true }
)

/** The `If-None-Match` request header of GET /book/{id} (any text is accepted), and `Commit-Position`. */
const IfNoneMatchHeaders = Type.Object(
  {
    'if-none-match': Type.Optional(
      Type.String({ description: 'Answer 304 with no body while the book still has this `ETag` (or any of a list; `*`: any).' })
    ),
    'commit-position': commitPositionProperty
  },
  { additionalProperties: true }
)

const badBody = invalidInputResponse(
  'the body is not a JSON object, or `title`/`author` is not a string of 1 to 500 characters (not only white space), or `year` is not an integer from -9999 to 9999.'
)

/**
 * OpenAPI links of a created book: its `data.id` is the `{id}` of the operations on
 * it, so stateful API testers chain create → get / update / delete without configuration.
 */
export const createdBookLinks = Object.fromEntries(
  (['getBook', 'updateBook', 'deleteBook'] as const).map((operationId) => [
    operationId,
    { operationId, parameters: { id: '$response.body#/data/id' }, description: `The id of the created book, as \`{id}\` of ${operationId}.` }
  ])
)

/** The tag that groups the book operations in the API document. */
const tags = ['Books']

/**
 * The route schemas of the five book operations: what Fastify validates and serializes, and
 * what the API document says of each (operation, parameters, its own statuses with their
 * messages). What the pipeline adds (the bearer scheme with 401 and 403 while the check is on,
 * 400 `Bad request`, 408, 413, 415, 417, 431, 500, 503) is derived by
 * src/http/api-document/pipeline-responses.ts.
 */
export function bookRouteSchemas() {
  return {
    create: {
      tags,
      operationId: 'createBook',
      summary: 'Create a book',
      description:
        'Stores a new book and returns it with its assigned id. Unknown fields and `id` in the body are ignored. ' +
        'With `Idempotency-Key`, a retry of the same request is answered as the first was and creates nothing.',
      headers: CreateBookHeaders,
      body: BookInput,
      response: {
        201: withHeaders(
          successResponse(Book, Messages.created, 'the stored book, with its new id (or, for a retry with the same `Idempotency-Key`, the first answer\'s book).', 201),
          { ...replayedHeaderDocument, ...commitPositionHeaderDocument }
        ),
        400: invalidInputResponse(
          'the body is not a JSON object, or `title`/`author` is not a string of 1 to 500 characters (not only white space), or `year` is not an integer from -9999 to 9999; or the `Idempotency-Key` is empty or over 255 characters.'
        ),
        409: errorResponse(409, `\`${Messages.requestInProgress}\`: a request with this \`Idempotency-Key\` is still being stored; retry later.`, [Messages.requestInProgress]),
        422: errorResponse(422, `\`${Messages.idempotencyKeyReused}\`: this \`Idempotency-Key\` was used within 24 h with a body describing another book; nothing was stored.`, [Messages.idempotencyKeyReused])
      }
    },
    list: {
      tags,
      operationId: 'listBooks',
      summary: 'List books',
      description:
        'Without query parameters: every book, ordered by id ascending (the contract). The optional parameters page ' +
        '(`limit`, `after`, with a `Link: <…>; rel="next"` header while more books follow), filter (`title`, `author`: ' +
        'case-insensitive substring; `year`, `year_min`, `year_max`) and sort (`sort`, ties broken by id); `count=true` ' +
        'adds `X-Total-Count`. Unknown parameters are ignored.',
      querystring: ListParameters,
      headers: CommitPositionHeaders,
      response: {
        200: withHeaders(successResponse(Type.Array(Book), Messages.listed, 'the books asked for (all of them, by id, without parameters).'), {
          link: { type: 'string' as const, description: 'RFC 8288 `</books?…>; rel="next"`: only with `limit`, while more books follow.' },
          'x-total-count': { type: 'integer' as const, description: 'How many books match the filters: only with `count=true`.' }
        }),
        400: invalidInputResponse('a query parameter has a bad value (e.g. `limit` outside 1..1000, a non-integer `year`, an `after` that is not an id or a cursor of this sort).')
      }
    },
    read: {
      tags,
      operationId: 'getBook',
      summary: 'Get a book',
      description: 'Answers 304 with no body when `If-None-Match` names the current `ETag` (or is `*`).',
      params: BookParams,
      headers: IfNoneMatchHeaders,
      response: {
        200: withHeaders(successResponse(Book, Messages.retrieved, 'the book with this id.'), etagHeaders),
        304: notModifiedResponse,
        404: bookNotFoundResponse
      }
    },
    update: {
      tags,
      operationId: 'updateBook',
      summary: 'Update a book',
      description:
        'Applies the fields present in the body on top of the stored book; absent fields keep their value, `{}` changes nothing. ' +
        'With `If-Match`, only while the book still has that `ETag` (`*`: any), checked and written atomically. ' +
        'Checked in this order: token (401), existence (404), `If-Match` (412), body (400).',
      params: BookParams,
      headers: IfMatchHeaders,
      body: BookPatch,
      response: {
        200: withHeaders(successResponse(Book, Messages.updated, 'the book as stored now.'), { ...etagHeaders, ...commitPositionHeaderDocument }),
        400: badBody,
        404: bookNotFoundResponse,
        412: preconditionFailedResponse
      }
    },
    changes: changeFeedSchema,
    delete: {
      tags,
      operationId: 'deleteBook',
      summary: 'Delete a book',
      description:
        'Removes the book; its id is never reused. A second delete answers 404. With `If-Match`, only while the ' +
        'book still has that `ETag` (`*`: any), checked and deleted atomically; order: token, 404, 412.',
      params: BookParams,
      headers: IfMatchHeaders,
      response: {
        200: withHeaders(successResponse(Type.Null(), Messages.deleted, `the book is removed; \`data\` is null.`), commitPositionHeaderDocument),
        404: bookNotFoundResponse,
        412: preconditionFailedResponse
      }
    }
  }
}

/** One event of the change feed: the JSON of its `data:` line (the API document's `ChangeEvent`). */
export const ChangeEventData = Type.Object(
  {
    id: Type.Union([Type.Integer(), Type.Null()], { description: 'The id of the book changed; null in `reset`.' }),
    book: Type.Union([Book, Type.Null()], { description: 'The book as GET /book/{id} answers it after the change; null when deleted and in `reset`.' })
  },
  { additionalProperties: false }
)

/**
 * GET /books/changes (docs/change-feed.md "Change feed"): its query, its stream of events (described in the
 * API document: OpenAPI has no schema language for `text/event-stream`, so the events' `data:`
 * line is the schema and the framing is told in words) and its own 503.
 */
const changeFeedSchema = {
  tags,
  operationId: 'watchBookChanges',
  summary: 'Follow book changes (Server-Sent Events)',
  description:
    'A `text/event-stream` of every committed create, update and delete, in order. Each event: `id:` the change\'s ' +
    'sequence number (strictly increasing), `event:` `created`, `updated`, `deleted` or `reset`, `data:` one line of ' +
    'JSON `{"id": <book id>, "book": <Book or null>}`. The stream starts with `retry: 1000` and sends a comment line ' +
    '(`:`) every FEED_HEARTBEAT seconds (15). Start point: the `Last-Event-ID` header (a reconnection: every change ' +
    'after it, then live ones, with no gap and no duplicate), else `after`, else from now. A start point older than ' +
    'the changes kept, or newer than the last one, gets one `reset` event (re-read the list; its `id:` is the last ' +
    'change) and then live changes. The stream ends when the token expires or is revoked, after FEED_MAX_STREAM_AGE ' +
    'seconds (3600), when the service stops, or when the client falls FEED_BUFFER_BYTES behind; reconnect with ' +
    '`Last-Event-ID`. A reader token may subscribe.',
  headers: Type.Object(
    {
      'last-event-id': Type.Optional(
        Type.String({ description: 'The `id:` of the last event received: the stream resumes after it (a value that is not a sequence number gets `reset`).' })
      )
    },
    { additionalProperties: true }
  ),
  querystring: Type.Object(
    {
      after: publishedAs(
        Type.Optional(
          Type.String({
            pattern: '^[0-9]{1,15}$',
            description: 'For a new subscriber: start after this sequence number (ignored when `Last-Event-ID` is sent).'
          })
        ),
        { type: 'integer', minimum: 0, maximum: 999_999_999_999_999 }
      )
    },
    { additionalProperties: true }
  ),
  response: {
    // A stream, not one JSON value: generators read it as text to stream (openapi-fetch's
    // `parseAs: 'stream'`); each event's `data:` line is a `ChangeEvent`.
    200: {
      description: 'The stream of change events (`text/event-stream`, endless): each event\'s `data:` is one line of JSON, a `ChangeEvent`.',
      content: {
        'text/event-stream': {
          schema: {
            type: 'string',
            contentMediaType: 'text/event-stream',
            contentSchema: ChangeEventData,
            description: 'Server-Sent Events; read it as a stream (it ends only as the description says).'
          }
        }
      }
    },
    400: invalidInputResponse('`after` is not a sequence number (decimal digits).'),
    503: errorResponse(
      503,
      `\`${Messages.unavailable}\`: this process already has FEED_MAX_SUBSCRIBERS streams open, or the token's subject FEED_MAX_STREAMS_PER_SUBJECT, or it is stopping; or the storage cannot be reached.`,
      [Messages.unavailable]
    )
  }
}
