import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { EventStreamParser, type StreamEvent } from '../../src/client/event-stream.js'

/** Parses `text` fed in pieces cut at `cuts`. */
function parse(text: string, cuts: number[] = []): { events: StreamEvent[]; parser: EventStreamParser } {
  const parser = new EventStreamParser()
  const events: StreamEvent[] = []
  let start = 0
  for (const cut of [...cuts, text.length]) {
    events.push(...parser.push(text.slice(start, cut)))
    start = cut
  }
  return { events, parser }
}

describe('EventStreamParser (text/event-stream)', () => {
  const feed =
    '\ufeff: the feed starts\nretry: 2500\n\n' +
    'id: 7\nevent: created\ndata: {"id":1,"book":{"id":1,"title":"Dune","author":"Frank Herbert","year":1965}}\n\n' +
    'id: 8\r\nevent: deleted\r\ndata: {"id":1,"book":null}\r\n\r\n' +
    'id:9\revent:reset\rdata:{}\r\r' +
    'data: first\ndata:second\ndata\n\n' +
    'event: updated\n\n' +
    'id: 10\nevent: updated\ndata: {"id":2}'

  const expected: StreamEvent[] = [
    { type: 'created', data: '{"id":1,"book":{"id":1,"title":"Dune","author":"Frank Herbert","year":1965}}', lastEventId: '7' },
    { type: 'deleted', data: '{"id":1,"book":null}', lastEventId: '8' },
    { type: 'reset', data: '{}', lastEventId: '9' },
    { type: 'message', data: 'first\nsecond\n', lastEventId: '9' }
  ]

  test('events, ids, retry, comments and the three line ends', () => {
    const { events, parser } = parse(feed)
    assert.deepEqual(events, expected)
    assert.equal(parser.retry, 2500)
    // The last event is not complete (no blank line yet): its id counts only once it is, so a
    // stream cut off here resumes before that event, which never arrived.
    assert.equal(parser.lastEventId, '9')
    assert.equal(parse(`${feed}\n\n`).parser.lastEventId, '10')
  })

  test('the same events whatever the pieces the stream arrives in (a CR LF split included)', () => {
    for (let cut = 1; cut < feed.length; cut++) {
      assert.deepEqual(parse(feed, [cut]).events, expected, `cut at ${cut}`)
    }
    const everyCharacter = Array.from({ length: feed.length - 1 }, (_, index) => index + 1)
    assert.deepEqual(parse(feed, everyCharacter).events, expected)
  })

  test('an id with NUL is ignored; an event without data is not dispatched', () => {
    const { events } = parse('id: 3\n\nid: 4\u00005\ndata: x\n\n')
    assert.deepEqual(events, [{ type: 'message', data: 'x', lastEventId: '3' }])
  })
})
