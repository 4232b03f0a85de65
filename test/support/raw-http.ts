import { connect } from 'node:net'

/** One raw HTTP/1.1 answer as {@link rawRequest} read it. */
export interface RawAnswer {
  status: number
  /** Header names lower-cased; the last value wins. */
  headers: Record<string, string>
  /** The body parsed as JSON (undefined when empty). */
  body: unknown
  /** Whether the server closed the connection after answering. */
  closed: boolean
}

/**
 * Sends `bytes` as they are on a new TCP connection to 127.0.0.1:`port` (for what `inject` and
 * `fetch` cannot send: repeated headers, CONNECT, bytes that are not UTF-8) and reads the first
 * answer, waiting until the server closes the connection or `waitMs` passes.
 *
 * @throws when nothing that looks like an HTTP answer came back.
 */
export async function rawRequest(port: number, bytes: string | Buffer, waitMs = 3000): Promise<RawAnswer> {
  const socket = connect(port, '127.0.0.1')
  const chunks: Buffer[] = []
  socket.on('data', (chunk: Buffer) => chunks.push(chunk))
  socket.on('error', () => {})
  let closed = false
  const done = new Promise<void>((resolve) => {
    socket.once('close', () => ((closed = true), resolve()))
    setTimeout(resolve, waitMs).unref()
  })
  socket.write(bytes)
  await done
  socket.destroy()
  const text = Buffer.concat(chunks).toString('utf8')
  const match = /^HTTP\/1\.1 (\d{3}) /.exec(text)
  if (!match) throw new Error(`not an HTTP answer: ${JSON.stringify(text.slice(0, 200))}`)
  const end = text.indexOf('\r\n\r\n')
  const headers: Record<string, string> = {}
  for (const line of text.slice(0, end).split('\r\n').slice(1)) {
    const colon = line.indexOf(':')
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim()
  }
  const rest = text.slice(end + 4)
  return { status: Number(match[1]), headers, body: rest === '' ? undefined : JSON.parse(rest), closed }
}

/** The bytes of an HTTP/1.1 request: request line, headers (`Host: x` first unless given) and body. */
export function requestBytes(line: string, headers: string[], body: Buffer | string = ''): Buffer {
  const payload = typeof body === 'string' ? Buffer.from(body) : body
  const all = [...headers, ...(payload.length > 0 ? [`Content-Length: ${payload.length}`] : []), 'Connection: close']
  return Buffer.concat([Buffer.from(`${line}\r\n${all.join('\r\n')}\r\n\r\n`, 'latin1'), payload])
}
