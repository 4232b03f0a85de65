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
 * answer (after any `100 Continue`), waiting until the server closes the connection or `waitMs` passes.
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
  const text = Buffer.concat(chunks).toString('utf8').replace(/^HTTP\/1\.1 100 Continue\r\n\r\n/, '')
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

/**
 * Splits what a server sent on one connection into its answers, in order (`100 Continue` lines
 * skipped; bodies framed by `Content-Length` in bytes, or chunked).
 *
 * @throws when the bytes are not a sequence of HTTP/1.1 answers.
 */
export function readAnswers(received: string | Buffer): RawAnswer[] {
  let rest = typeof received === 'string' ? Buffer.from(received, 'latin1') : received
  const found: RawAnswer[] = []
  while (rest.length > 0) {
    const end = rest.indexOf('\r\n\r\n')
    const head = rest.subarray(0, end === -1 ? rest.length : end).toString('latin1')
    const match = /^HTTP\/1\.1 (\d{3}) /.exec(head)
    if (!match || end === -1) throw new Error(`not an HTTP answer: ${JSON.stringify(head.slice(0, 200))}`)
    const headers: Record<string, string> = {}
    for (const line of head.split('\r\n').slice(1)) {
      const colon = line.indexOf(':')
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim()
    }
    rest = rest.subarray(end + 4)
    if (match[1] === '100') continue
    const pieces: Buffer[] = []
    if (headers['transfer-encoding'] === 'chunked') {
      for (;;) {
        const lineEnd = rest.indexOf('\r\n')
        const size = parseInt(rest.subarray(0, lineEnd).toString('latin1'), 16)
        pieces.push(rest.subarray(lineEnd + 2, lineEnd + 2 + size))
        rest = rest.subarray(lineEnd + 2 + size + 2)
        if (size === 0) break
      }
    } else {
      const length = Number(headers['content-length'] ?? 0)
      pieces.push(rest.subarray(0, length))
      rest = rest.subarray(length)
    }
    const body = Buffer.concat(pieces).toString('utf8')
    found.push({ status: Number(match[1]), headers, body: body === '' ? undefined : JSON.parse(body), closed: false })
  }
  return found
}
