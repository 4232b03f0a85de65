/**
 * The two baselines of the benchmark, each a bare `node:http` server in a process of its own
 * (so it gets a core to itself, exactly like the service):
 *
 * - `ceiling`: answers every request with one constant, pre-serialized book envelope. Nothing a
 *   real service does (routing, auth, storage, logging) can be faster than this on this machine.
 * - `list-<n>`: answers every request with the pre-serialized GET /books envelope of the n
 *   seeded books (`seededBook`): the ceiling of listing n books here, mostly the load generator's
 *   cost of reading that many bytes.
 * - `floor`: inserts each request's book with better-sqlite3 in its own transaction, WAL journal,
 *   `synchronous=FULL` (one fsync per request), then answers 201: the naive durable write.
 *
 * Usage: `node --import tsx bench/baseline.ts <ceiling|list-<n>|floor> <port> [database file]`.
 * Prints `listening` on stdout once it accepts connections; stops on SIGTERM.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import Database from 'better-sqlite3'
import { seededBook } from './seeded-book.js'

const [kind, portText, databaseFile] = process.argv.slice(2)
const port = Number(portText)

const HEADERS = { 'content-type': 'application/json; charset=utf-8' }

/** The constant answer of the ceiling: what GET /book/{id} returns, serialized once. */
const CONSTANT = JSON.stringify({
  status: 200,
  message: 'Book retrieved successfully',
  data: { id: 1, title: 'Book title 1', author: 'Author 1', year: 1901 }
})

function ceiling(_request: IncomingMessage, response: ServerResponse): void {
  response.writeHead(200, HEADERS).end(CONSTANT)
}

function listCeiling(count: number): (request: IncomingMessage, response: ServerResponse) => void {
  const data = Array.from({ length: count }, (_, index) => ({ id: index + 1, ...seededBook(index + 1) }))
  const body = Buffer.from(JSON.stringify({ status: 200, message: 'Books retrieved successfully', data }))
  return (_request, response) => {
    response.writeHead(200, HEADERS).end(body)
  }
}

function floor(): (request: IncomingMessage, response: ServerResponse) => void {
  if (!databaseFile) throw new Error('floor needs a database file')
  const db = new Database(databaseFile)
  db.pragma('journal_mode = WAL')
  db.pragma('synchronous = FULL')
  db.exec('CREATE TABLE IF NOT EXISTS books (id INTEGER PRIMARY KEY AUTOINCREMENT, title TEXT NOT NULL, author TEXT NOT NULL, year INTEGER NOT NULL)')
  const insert = db.prepare<[string, string, number], { id: number }>(
    'INSERT INTO books (title, author, year) VALUES (?, ?, ?) RETURNING id'
  )
  // One transaction (so one commit and one fsync of the WAL) per request.
  const create = db.transaction((book: { title: string; author: string; year: number }) =>
    insert.get(book.title, book.author, book.year)!
  )
  return (request, response) => {
    if (request.method !== 'POST') {
      response.writeHead(200, HEADERS).end('{"status":200,"message":"OK","data":null}')
      return
    }
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      const book = JSON.parse(Buffer.concat(chunks).toString()) as { title: string; author: string; year: number }
      const { id } = create(book)
      response
        .writeHead(201, HEADERS)
        .end(JSON.stringify({ status: 201, message: 'Book created successfully', data: { id, ...book } }))
    })
  }
}

const handler =
  kind === 'ceiling' ? ceiling
    : kind === 'floor' ? floor()
      : kind?.startsWith('list-') ? listCeiling(Number(kind.slice(5)))
        : undefined
if (!handler || !Number.isInteger(port)) {
  process.stderr.write('usage: baseline.ts <ceiling|list-<n>|floor> <port> [database file]\n')
  process.exit(2)
}
const server = createServer({ keepAliveTimeout: 60_000 }, handler)
server.listen(port, '127.0.0.1', () => process.stdout.write('listening\n'))
process.once('SIGTERM', () => server.close(() => process.exit(0)).closeAllConnections())
