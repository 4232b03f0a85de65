/** Deepest nesting of arrays and objects a request body may have (docs/contract.md "Hardening"). */
export const MAX_JSON_DEPTH = 32

/**
 * Most arrays, objects and separated elements a request body may hold in all (docs/contract.md
 * "Hardening"). Every body the service takes has a handful of fields; 1 MiB of `[],` would
 * otherwise make 340,000 arrays (~50 MB of heap for one body while it is parsed and checked).
 */
export const MAX_JSON_VALUES = 10_000
const COMMA = 0x2c

const QUOTE = 0x22
const BACKSLASH = 0x5c
const OPEN_ARRAY = 0x5b
const CLOSE_ARRAY = 0x5d
const OPEN_OBJECT = 0x7b
const CLOSE_OBJECT = 0x7d

/**
 * Whether the JSON text in `bytes` nests arrays and objects deeper than `maxDepth` anywhere (an
 * ignored field included), decided by one pass over the bytes before anything is parsed, so a
 * deep body costs a scan and never the values `JSON.parse` would build for it (half a million
 * nested arrays in 1 MiB would take hundreds of megabytes). The structural characters of JSON
 * are ASCII and never occur inside a multi-byte UTF-8 sequence, so the bytes need no decoding;
 * brackets inside strings (escaped quotes included) are skipped. Text that is not JSON gets some
 * answer here and fails the parse anyway.
 *
 * @param bytes a request body, in UTF-8.
 * @param maxDepth the deepest nesting allowed (the top-level object is depth 1).
 */
export function nestsDeeperThan(bytes: Uint8Array, maxDepth: number): boolean {
  return exceedsJsonBounds(bytes, maxDepth, Number.POSITIVE_INFINITY)
}

/**
 * Whether the JSON text in `bytes` nests deeper than `maxDepth` (as {@link nestsDeeperThan}) or
 * holds more than `maxValues` arrays, objects and comma-separated elements in all, anywhere (an
 * ignored field included), in the same one pass over the bytes: a wide body costs a scan and
 * never the values `JSON.parse` would build for it.
 *
 * @param bytes a request body, in UTF-8.
 * @param maxDepth the deepest nesting allowed (the top-level object is depth 1).
 * @param maxValues the most arrays and objects plus commas between elements or members.
 */
export function exceedsJsonBounds(bytes: Uint8Array, maxDepth: number, maxValues: number): boolean {
  let depth = 0
  let values = 0
  for (let at = 0; at < bytes.length; at++) {
    const byte = bytes[at]
    if (byte === QUOTE) {
      // Skip the string: to the next quote that no backslash escapes.
      for (at++; at < bytes.length && bytes[at] !== QUOTE; at++) {
        if (bytes[at] === BACKSLASH) at++
      }
    } else if (byte === OPEN_ARRAY || byte === OPEN_OBJECT) {
      if (++depth > maxDepth || ++values > maxValues) return true
    } else if (byte === CLOSE_ARRAY || byte === CLOSE_OBJECT) {
      depth--
    } else if (byte === COMMA) {
      if (++values > maxValues) return true
    }
  }
  return false
}
