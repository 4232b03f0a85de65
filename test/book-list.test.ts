import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { FastifyInstance } from 'fastify'
import { authHeaders } from './support/app.js'
import { describeEachEngine } from './support/suite.js'

const auth = authHeaders()

/** Titles that exercise JSON escaping: quotes, backslashes, control characters, non-ASCII, U+2028. */
const awkward = ['"quoted" \\ back\\slash', 'tab\there\nnew line', 'Борхес 😀 ☃', 'line\u2028separator', '</script>']

async function createBooks(app: FastifyInstance, count: number) {
  const books = []
  for (let i = 0; i < count; i++) {
    const input = { title: `${awkward[i % awkward.length]} #${i}`, author: `Author ${i}`, year: (i % 19999) - 9999 }
    const response = await app.inject({ method: 'POST', url: '/book', headers: auth, payload: input })
    assert.equal(response.statusCode, 201, response.body)
    books.push(response.json().data)
  }
  return books
}

describeEachEngine('GET /books body is the envelope byte for byte', ({ withFreshApp }) => {
  for (const count of [0, 1, 2500]) {
    test(`${count} books`, async () => {
      await withFreshApp(async (app) => {
        const books = await createBooks(app, count)
        const response = await app.inject({ url: '/books', headers: auth })
        assert.equal(response.statusCode, 200)
        assert.equal(response.headers['content-type'], 'application/json; charset=utf-8')
        const expected = JSON.stringify({ status: 200, message: 'Books retrieved successfully', data: books })
        assert.equal(response.body, expected)
        if (count > 1000) {
          // Long lists (more than one store page) are streamed, never built as one string.
          assert.equal(response.headers['transfer-encoding'], 'chunked')
          assert.equal(response.headers['content-length'], undefined)
        } else {
          assert.equal(response.headers['content-length'], String(Buffer.byteLength(expected)))
        }
      })
    })
  }
})
