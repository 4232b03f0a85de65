import type { Book } from './books.js'

/**
 * A plain reference of the search rule (docs/contract.md "Search"), written apart from the service's
 * code: every book scanned, no index. Tests compare the service's answers with it.
 */

/** Letters whose diacritics search ignores: the lower-case Latin letters that decompose to a–z. */
const base = (character: string) => {
  const code = character.codePointAt(0)!
  const latin = (code >= 0xc0 && code <= 0x24f) || (code >= 0x1e00 && code <= 0x1eff)
  const stripped = character.normalize('NFD').replace(/\p{M}/gu, '')
  return latin && /^[a-z]$/.test(stripped) && !EXCLUDED.has(character) ? stripped : character
}
/** The one such letter SQLite's FTS5 does not fold to its base letter: kept as it is. */
const EXCLUDED = new Set(['ǡ'])

export const form = (text: string) => [...text.normalize('NFC').toLowerCase()].map(base).join('')

export function termsOf(q: string): { text: string; quoted: boolean }[] {
  const terms: { text: string; quoted: boolean }[] = []
  // Quoted parts first, then the rest split on white space.
  const parts = q.trim().split('"')
  parts.forEach((part, index) => {
    if (index % 2 === 1) {
      if (part !== '') terms.push({ text: form(part), quoted: true })
    } else {
      for (const word of part.split(/\s+/u)) if (word !== '') terms.push({ text: form(word), quoted: false })
    }
  })
  return terms
}

function distance(a: string[], b: string[]): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)))
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1)
    }
  }
  return d[a.length]![b.length]!
}

const words = (text: string) => text.match(/[\p{L}\p{N}]+/gu) ?? []

/** The rank of `book` (0 exact title … 5 approximate), or undefined when it does not match `q`. */
export function referenceRank(q: string, book: Omit<Book, 'id'>): number | undefined {
  const terms = termsOf(q)
  const title = form(book.title)
  const author = form(book.author)
  let approximate = false
  for (const term of terms) {
    if (title.includes(term.text) || author.includes(term.text)) continue
    const near = (word: string) => distance([...word], [...term.text]) <= 1
    if (term.quoted || [...term.text].length < 5 || ![...words(title), ...words(author)].some(near)) return undefined
    approximate = true
  }
  if (approximate) return 5
  const text = form(q.trim())
  if (title === text) return 0
  if (title.startsWith(text)) return 1
  const wordStart = terms.some((term) => {
    for (let at = title.indexOf(term.text); at !== -1; at = title.indexOf(term.text, at + 1)) {
      const before = [...title.slice(0, at)].at(-1)
      if (before === undefined || !/[\p{L}\p{N}]/u.test(before)) return true
    }
    return false
  })
  if (wordStart) return 2
  if (terms.some((term) => title.includes(term.text))) return 3
  return 4
}

/** The books matching `q`, in relevance order (rank, then id). */
export function referenceSearch(q: string, books: Book[]): Book[] {
  return books
    .map((book) => ({ book, rank: referenceRank(q, book) }))
    .filter((entry) => entry.rank !== undefined)
    .sort((a, b) => a.rank! - b.rank! || a.book.id - b.book.id)
    .map((entry) => entry.book)
}
