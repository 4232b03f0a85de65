import type { BookChange } from '../storage/contracts/change-log.js'

/**
 * How long a client should wait before reconnecting after the stream breaks, in milliseconds:
 * the `retry:` field sent first on every stream (HTML Living Standard, "Server-sent events").
 */
export const RETRY_MS = 1000

/** The first bytes of every stream: the reconnection delay (no event: there is no `data:`). */
export const RETRY_TEXT = `retry: ${RETRY_MS}\n\n`

/**
 * Where the stream continues from, as the last event id alone (a block without `data:` is no
 * event, but it sets the id `Last-Event-ID` resends): sent once the start is settled, so a client
 * that loses the stream before the first change resumes from there instead of "from now" again,
 * which would skip the changes of the break. `0` (an empty log) resumes from the first change.
 */
export function seqText(seq: number): string {
  return `id: ${seq}\n\n`
}

/** A comment line, sent as the heartbeat so proxies and clients see the connection is alive. */
export const HEARTBEAT_TEXT = ':\n\n'

/**
 * One change as a `text/event-stream` event (docs/contract.md "Other representations"): `id:` the
 * change's sequence number, `event:` its operation, `data:` one line of JSON `{"id": <book id>,
 * "book": <the book as GET /book/{id} answers it, or null when deleted>}`.
 */
export function changeEventText(change: BookChange): string {
  const book = change.book === null ? null : { id: change.book.id, title: change.book.title, author: change.book.author, year: change.book.year }
  return `id: ${change.seq}\nevent: ${change.operation}\ndata: ${JSON.stringify({ id: change.bookId, book })}\n\n`
}

/**
 * The `reset` event: the changes after the client's `Last-Event-ID` are no longer all in the log
 * (or that id was never issued), so it must re-read the list. Its `id:` is `lastSeq`, the point
 * the stream continues from; with an empty log (0) there is no such point and no sequence number
 * to give (they are positive, docs/contract.md "Other representations"), so the event has no `id:`.
 */
export function resetEventText(lastSeq: number): string {
  const id = lastSeq > 0 ? `id: ${lastSeq}\n` : ''
  return `${id}event: reset\ndata: {"id":null,"book":null}\n\n`
}
