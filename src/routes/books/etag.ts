import { createHash } from 'node:crypto'
import type { VersionedBook } from '../../storage/contracts/book-store.js'

/**
 * Tags already computed, per book object: the stores keep read books in a cache and never
 * change a cached object (a write replaces it), so a book read again is hashed only once.
 */
const computed = new WeakMap<VersionedBook, string>()

/**
 * The strong `ETag` of a stored book (RFC 9110 §8.8.3), e.g. `"q2Lh0Sx5cT3W6xJ1Bn8b4A"`: a
 * SHA-256 digest (first 128 bits, base64url) of its id, version, title, author and year. Every
 * update increments the version, so the tag changes whenever the book changes; the content in
 * the digest keeps tags distinct even across a database that was reset and reused ids.
 */
export function bookETag(book: VersionedBook): string {
  let etag = computed.get(book)
  if (etag === undefined) {
    const digest = createHash('sha256')
      .update(JSON.stringify([book.id, book.version, book.title, book.author, book.year]))
      .digest('base64url')
    etag = `"${digest.slice(0, 22)}"`
    computed.set(book, etag)
  }
  return etag
}

/** The entity-tags of an `If-Match` / `If-None-Match` value: `*`, or each tag with its weakness. */
function entityTags(header: string): '*' | Array<{ weak: boolean; tag: string }> {
  if (header.trim() === '*') return '*'
  return [...header.matchAll(/(W\/)?("[^"]*")/g)].map((match) => ({ weak: match[1] !== undefined, tag: match[2]! }))
}

/**
 * Whether an `If-Match` header lets a write proceed on a book whose tag is `etag` (RFC 9110
 * §13.1.1): `*`, or one of its tags equal by the strong comparison (weak tags never match).
 * A value without any quoted tag matches nothing.
 */
export function ifMatchHolds(header: string, etag: string): boolean {
  const tags = entityTags(header)
  return tags === '*' || tags.some(({ weak, tag }) => !weak && tag === etag)
}

/**
 * Whether an `If-None-Match` header names the current tag `etag` (RFC 9110 §13.1.2), so a GET
 * answers 304: `*`, or one of its tags equal by the weak comparison (`W/` ignored).
 */
export function ifNoneMatchMatches(header: string, etag: string): boolean {
  const tags = entityTags(header)
  return tags === '*' || tags.some(({ tag }) => tag === etag)
}
