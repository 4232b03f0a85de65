/** Deepest nesting of arrays and objects a request body may have (docs/contract.md "Hardening"). */
export const MAX_JSON_DEPTH = 32

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
  let depth = 0
  for (let at = 0; at < bytes.length; at++) {
    const byte = bytes[at]
    if (byte === QUOTE) {
      // Skip the string: to the next quote that no backslash escapes.
      for (at++; at < bytes.length && bytes[at] !== QUOTE; at++) {
        if (bytes[at] === BACKSLASH) at++
      }
    } else if (byte === OPEN_ARRAY || byte === OPEN_OBJECT) {
      if (++depth > maxDepth) return true
    } else if (byte === CLOSE_ARRAY || byte === CLOSE_OBJECT) {
      depth--
    }
  }
  return false
}
