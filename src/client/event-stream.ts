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
 * An incremental parser of `text/event-stream`, fed decoded text in pieces of any size (a line
 * or a CR LF may be split between pieces), as the standard's "interpret the event stream" says:
 * lines end with CR LF, LF or CR; `:` starts a comment; `field: value` drops one leading space;
 * an empty line dispatches the event, unless it has no data; `id` without NUL sets the last event
 * id; `retry` with only digits sets the reconnection delay.
 */
export class EventStreamParser {
  private buffer = ''
  private started = false
  private type = ''
  private data = ''
  private hasData = false
  /** The `id:` field seen last; it becomes {@link lastEventId} at the end of its block. */
  private idBuffer = ''
  private committedId = ''
  /**
   * The last event id (what `Last-Event-ID` resends on reconnection): the last `id:` of a block
   * that ended with its empty line, with data or not, as the standard's dispatch sets it. An
   * `id:` whose block was cut off does not count: its event never arrived. Set it to carry the
   * id of an earlier connection over to a new parser.
   */
  get lastEventId(): string {
    return this.committedId
  }
  set lastEventId(value: string) {
    this.committedId = value
    this.idBuffer = value
  }
  /** The reconnection delay the stream asked for (`retry:`), in milliseconds. */
  retry?: number

  /**
   * Parses `text`, the next piece of the stream.
   *
   * @returns the events completed by it, in order.
   */
  push(text: string): StreamEvent[] {
    if (!this.started && text.length > 0) {
      this.started = true
      if (text.startsWith('\ufeff')) text = text.slice(1)
    }
    this.buffer += text
    const events: StreamEvent[] = []
    let start = 0
    for (;;) {
      const end = this.buffer.slice(start).search(/[\r\n]/)
      if (end === -1) break
      const index = start + end
      // A CR at the very end may be the first half of a CR LF: wait for the next piece.
      if (this.buffer[index] === '\r' && index === this.buffer.length - 1) break
      const line = this.buffer.slice(start, index)
      start = index + (this.buffer[index] === '\r' && this.buffer[index + 1] === '\n' ? 2 : 1)
      const event = this.line(line)
      if (event) events.push(event)
    }
    this.buffer = this.buffer.slice(start)
    return events
  }

  private line(line: string): StreamEvent | undefined {
    if (line === '') return this.dispatch()
    if (line.startsWith(':')) return undefined
    const colon = line.indexOf(':')
    const field = colon === -1 ? line : line.slice(0, colon)
    let value = colon === -1 ? '' : line.slice(colon + 1)
    if (value.startsWith(' ')) value = value.slice(1)
    switch (field) {
      case 'event':
        this.type = value
        break
      case 'data':
        this.data += this.hasData ? `\n${value}` : value
        this.hasData = true
        break
      case 'id':
        if (!value.includes('\u0000')) this.idBuffer = value
        break
      case 'retry':
        if (/^[0-9]+$/.test(value)) this.retry = Number(value)
        break
    }
    return undefined
  }

  private dispatch(): StreamEvent | undefined {
    this.committedId = this.idBuffer
    const event = this.hasData ? { type: this.type || 'message', data: this.data, lastEventId: this.lastEventId } : undefined
    this.type = ''
    this.data = ''
    this.hasData = false
    return event
  }
}
