/** Largest id a book may have: 2^53-1, the largest integer a JSON number carries exactly (docs/contract.md "Ids"). */
export const MAX_BOOK_ID = Number.MAX_SAFE_INTEGER

/**
 * Reads an id written as decimal digits (at most 16 of them) with a value from 0 to
 * {@link MAX_BOOK_ID}: the form of the `{id}` path segment and of the list's `after` id.
 *
 * @returns the value, or undefined for anything else (`abc`, `-1`, `1.5`, `1e3`, too large).
 */
export function parseDecimalId(text: string): number | undefined {
  if (!/^[0-9]{1,16}$/.test(text)) return undefined
  const id = Number(text)
  return id <= MAX_BOOK_ID ? id : undefined
}

/**
 * Parses the `{id}` path segment (docs/contract.md "Ids"): decimal digits with a value in
 * 1 .. 2^53-1.
 *
 * @returns the id, or undefined for anything else (`abc`, `-1`, `0`, `1.5`, `1e3`, too large).
 */
export function parseBookId(text: string): number | undefined {
  const id = parseDecimalId(text)
  return id !== undefined && id >= 1 ? id : undefined
}
