import { createParser, type EventSourceParser } from 'eventsource-parser'

/** One event of a `text/event-stream` (HTML Living Standard, "Server-sent events"). */
export interface StreamEvent {
  /** The `event:` field; `message` when the event has none. */
  type: string
  /** The `data:` lines, joined with line feeds. */
  data: string
  /** The last `id:` seen up to this event (what `Last-Event-ID` resends on reconnection). */
  lastEventId: string
}

/**
 * An incremental parser of `text/event-stream`, fed decoded text in pieces of any size: the
 * standard's "interpret the event stream" is `eventsource-parser`'s (lines, comments, fields, a
 * block without data dispatching nothing); this adds what a reconnecting client keeps across
 * blocks and connections, the last event id and the reconnection delay.
 */
export class EventStreamParser {
  private readonly parser: EventSourceParser
  private completed: StreamEvent[] = []
  private committedId = ''
  /** The reconnection delay the stream asked for (`retry:`), in milliseconds. */
  retry?: number

  constructor() {
    this.parser = createParser({
      // The last `id:` of a block that ended with its empty line, with data or not; an `id:`
      // whose block was cut off does not count: its event never arrived.
      onId: (id) => (this.committedId = id),
      onEvent: (event) => this.completed.push({ type: event.event || 'message', data: event.data, lastEventId: this.committedId }),
      onRetry: (retry) => (this.retry = retry)
    })
  }

  /**
   * The last event id (what `Last-Event-ID` resends on reconnection). Set it to carry the id of
   * an earlier connection over to a new parser.
   */
  get lastEventId(): string {
    return this.committedId
  }
  set lastEventId(value: string) {
    this.committedId = value
  }

  /**
   * Parses `text`, the next piece of the stream.
   *
   * @returns the events completed by it, in order.
   */
  push(text: string): StreamEvent[] {
    this.parser.feed(text)
    const events = this.completed
    this.completed = []
    return events
  }
}
