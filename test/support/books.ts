import assert from 'node:assert/strict'
import type { FastifyInstance } from 'fastify'
import { authHeaders } from './app.js'

/** A book as every response shows it. */
export interface Book {
  id: number
  title: string
  author: string
  year: number
}

/** The book most tests create. */
export const dune = { title: 'Dune', author: 'Frank Herbert', year: 1965 }

/** Creates `book` through `POST /book` (with a valid token), asserts 201, returns the stored book. */
export async function createBook(app: FastifyInstance, book: object = dune): Promise<Book> {
  const response = await app.inject({ method: 'POST', url: '/book', headers: authHeaders(), payload: book })
  assert.equal(response.statusCode, 201, response.body)
  return response.json().data as Book
}

/** Asserts an answer is exactly the envelope `{status, message, data}` with that HTTP status, as JSON. */
export function assertEnvelope(
  response: { statusCode: number; json(): unknown; headers: Record<string, unknown> },
  status: number,
  message: string,
  data: unknown = null
): void {
  assert.equal(response.statusCode, status)
  assert.match(String(response.headers['content-type']), /^application\/json; charset=utf-8$/)
  assert.deepEqual(response.json(), { status, message, data })
}
