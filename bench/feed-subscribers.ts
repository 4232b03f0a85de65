import { connect, type Socket } from 'node:net'

/**
 * A child process of `npm run bench:feed` (bench/feed.ts): opens `count` raw connections to
 * GET /books/changes and reads their events, so the subscribers' side is spread over processes
 * and is not the bottleneck. Arguments: port, count, bearer token, sample every Nth socket.
 *
 * Every socket checks its `created` events arrive each once, in id order; every Nth socket also
 * keeps each event's arrival time (the latency sample). Messages: `{ opened }` once all are
 * open; on `{ acks }` (book id → acknowledgement time) it answers `{ report }`.
 */

const [port, count, token, sampleEvery] = [Number(process.argv[2]), Number(process.argv[3]), process.argv[4]!, Number(process.argv[5])]
const now = () => performance.timeOrigin + performance.now()
const MARK = 'data: {"id":'

interface Reader {
  tail: string
  received: number
  lastId: number
  ordered: boolean
  closed: boolean
  arrivals?: Map<number, number>
}

const readers: Reader[] = []

function open(index: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const reader: Reader = { tail: '', received: 0, lastId: 0, ordered: true, closed: false }
    if (index % sampleEvery === 0) reader.arrivals = new Map()
    readers.push(reader)
    const socket: Socket = connect(port, '127.0.0.1', () => {
      socket.write(`GET /books/changes HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\nAccept: text/event-stream\r\n\r\n`)
      resolve()
    })
    socket.on('error', reject)
    socket.on('close', () => (reader.closed = true))
    socket.on('data', (chunk: Buffer) => {
      const at = now()
      const text = reader.tail + chunk.toString('latin1')
      const end = text.lastIndexOf('\n\n')
      if (end === -1) {
        reader.tail = text
        return
      }
      reader.tail = text.slice(end + 2)
      let from = 0
      for (;;) {
        const found = text.indexOf(MARK, from)
        if (found === -1 || found > end) break
        const id = Number.parseInt(text.slice(found + MARK.length, found + MARK.length + 16), 10)
        from = found + MARK.length
        reader.received += 1
        if (id <= reader.lastId) reader.ordered = false
        reader.lastId = id
        reader.arrivals?.set(id, at)
      }
    })
  })
}

for (let index = 0; index < count; index += 250) {
  await Promise.all(Array.from({ length: Math.min(250, count - index) }, (_, offset) => open(index + offset)))
}
process.send!({ opened: readers.length })

process.on('message', (message: { acks?: Array<[number, number]>; progress?: boolean }) => {
  if (message.progress) {
    process.send!({ progress: readers.reduce((least, reader) => Math.min(least, reader.received), Number.POSITIVE_INFINITY) })
    return
  }
  const acks = new Map(message.acks)
  const latencies: number[] = []
  for (const reader of readers) {
    for (const [id, at] of reader.arrivals ?? []) {
      const ack = acks.get(id)
      if (ack !== undefined) latencies.push(at - ack)
    }
  }
  process.send!({
    report: {
      subscribers: readers.length,
      received: readers.map((reader) => reader.received),
      ordered: readers.every((reader) => reader.ordered),
      closed: readers.filter((reader) => reader.closed).length,
      latencies
    }
  })
})
