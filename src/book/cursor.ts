import { foldText } from './fold.js'
import type { ListPosition, SortField } from './query.js'
import type { Book } from './schema.js'

/**
 * The position of `book` in a list sorted by `field`: its sort key (the id, folded title, folded
 * author or year: what the sort's column holds) and its id. A list read "after" it starts with
 * the next book in that order: the next page's start, of a client's page or of a store's read.
 */
export function positionOf(field: SortField, book: Book): ListPosition {
  const key = field === 'title' ? foldText(book.title) : field === 'author' ? foldText(book.author) : field === 'year' ? book.year : book.id
  return { key, id: book.id }
}

/**
 * The opaque cursor of the position just past `book` in a list sorted by `sort` (e.g. `-title`):
 * base64url of the JSON `[sort, key, id]`, where the key is the book's folded title, folded
 * author or year (the column the sort orders by: {@link positionOf}). Used for the `after` of
 * the next page's URL.
 *
 * @param sort the `sort` parameter as the client gave it (with its `-` when descending).
 * @param field the sort field it names (never `id`: id sorts use the id itself).
 */
export function encodeCursor(sort: string, field: SortField, book: Book): string {
  const { key, id } = positionOf(field, book)
  return Buffer.from(JSON.stringify([sort, key, id])).toString('base64url')
}

/**
 * Decodes a cursor made by {@link encodeCursor} for the same `sort`.
 *
 * @returns the position, or undefined when `text` is not a cursor of `sort` (another sort's,
 *   not base64url JSON, a key of the wrong type or holding U+0000, an id that is not a
 *   non-negative safe integer).
 */
export function decodeCursor(text: string, sort: string, field: SortField): ListPosition | undefined {
  const value = decodedJson(text)
  if (!Array.isArray(value) || value.length !== 3 || value[0] !== sort) return undefined
  const [, key, id] = value as [string, unknown, unknown]
  if (!Number.isSafeInteger(id) || (id as number) < 0) return undefined
  // A key holding U+0000 is no stored book's (no title or author holds one) and no engine may be
  // asked for it: PostgreSQL refuses NUL in text (docs/contract.md "Search": 400 `Invalid input`).
  const keyValid = field === 'year' ? Number.isSafeInteger(key) : typeof key === 'string' && !key.includes('\u0000')
  return keyValid ? { key: key as string | number, id: id as number } : undefined
}

/**
 * The opaque cursor of a page of a book's history (`GET /book/{id}/history`, README "History
 * and restore"): base64url of the JSON `["history", key]`, where key is the history key of the last
 * entry of a page (`HistoryRow.history_key`); the next page holds the entries before it.
 */
export function encodeHistoryCursor(key: number): string {
  return Buffer.from(JSON.stringify(['history', key])).toString('base64url')
}

/**
 * Decodes a cursor made by {@link encodeHistoryCursor}.
 *
 * @returns the history key, or undefined when `text` is not such a cursor.
 */
export function decodeHistoryCursor(text: string): number | undefined {
  const value = decodedJson(text)
  if (!Array.isArray(value) || value.length !== 2 || value[0] !== 'history') return undefined
  const key: unknown = value[1]
  return Number.isSafeInteger(key) && (key as number) >= 1 ? (key as number) : undefined
}

/** The JSON value base64url `text` encodes, or undefined when it encodes none. */
function decodedJson(text: string): unknown {
  try {
    return JSON.parse(Buffer.from(text, 'base64url').toString('utf8'))
  } catch {
    return undefined
  }
}

/**
 * The opaque cursor of the position just past a book in a search's relevance order (README
 * "Search"): base64url of the JSON `["q", rank, id]`.
 */
export function encodeRelevanceCursor(rank: number, id: number): string {
  return Buffer.from(JSON.stringify(['q', rank, id])).toString('base64url')
}

/**
 * Decodes a cursor made by {@link encodeRelevanceCursor}.
 *
 * @returns the position (the rank as its key), or undefined when `text` is not such a cursor.
 */
export function decodeRelevanceCursor(text: string): ListPosition | undefined {
  let value: unknown
  try {
    value = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'))
  } catch {
    return undefined
  }
  if (!Array.isArray(value) || value.length !== 3 || value[0] !== 'q') return undefined
  const [, rank, id] = value as [string, unknown, unknown]
  if (!Number.isSafeInteger(rank) || !Number.isSafeInteger(id) || (id as number) < 0) return undefined
  return { key: rank as number, id: id as number }
}
