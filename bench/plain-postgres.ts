/**
 * The plain PostgreSQL server of the write benchmark (bench/postgres-writes.ts): `node --import tsx
 * bench/plain-postgres.ts <port> <database url> <pool size>`. Each request is one pooled statement,
 * `INSERT … RETURNING` (POST /book) or `UPDATE … RETURNING` (PUT /book/{id}), on a table of its own
 * (`plain_books`, no trigger, no log) in the same database: what a write costs with nothing else.
 * No auth, no validation beyond JSON parsing: the floor any service pays is above it.
 */
import { createServer } from 'node:http'
import pg from 'pg'

const [port, url, poolSize] = process.argv.slice(2)
const pool = new pg.Pool({ connectionString: url, max: Number(poolSize) })
await pool.query(`CREATE TABLE IF NOT EXISTS plain_books (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  title text NOT NULL, author text NOT NULL, year integer NOT NULL, version integer NOT NULL DEFAULT 1)`)
await pool.query(`INSERT INTO plain_books (title, author, year) SELECT 'Seed ' || n, 'Author', 2000 FROM generate_series(1, 1000) AS n
  WHERE NOT EXISTS (SELECT FROM plain_books)`)

const INSERT = { name: 'plain-insert', text: 'INSERT INTO plain_books (title, author, year) VALUES ($1, $2, $3) RETURNING id, title, author, year' }
const UPDATE = {
  name: 'plain-update',
  text: 'UPDATE plain_books SET title = COALESCE($1, title), version = version + 1 WHERE id = $2 RETURNING id, title, author, year'
}

createServer((request, response) => {
  let body = ''
  request.setEncoding('utf8')
  request.on('data', (chunk: string) => (body += chunk))
  request.on('end', () => {
    const answer = (status: number, data: unknown) => {
      response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ status, data }))
    }
    if (request.method === 'GET') return answer(200, null)
    const input = JSON.parse(body || '{}') as { title?: string; author?: string; year?: number }
    const id = /^\/book\/(\d+)$/.exec(request.url ?? '')?.[1]
    const write =
      request.method === 'POST'
        ? pool.query({ ...INSERT, values: [input.title, input.author, input.year] })
        : pool.query({ ...UPDATE, values: [input.title ?? null, Number(id)] })
    write.then(
      (result) => (result.rows[0] ? answer(request.method === 'POST' ? 201 : 200, result.rows[0]) : answer(404, null)),
      () => answer(500, null)
    )
  })
}).listen(Number(port), '127.0.0.1')
