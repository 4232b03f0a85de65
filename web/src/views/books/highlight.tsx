import { MIN_APPROXIMATE_LENGTH, parseSearch, withinOneEdit, withoutDiacritics } from '../../../../src/book/search.js'

/** A part of a text: matched by the search or not. */
interface Part {
  text: string
  matched: boolean
}

/**
 * The parts of `text` that the search `q` matches (docs/search.md "Search"), found as the API finds them:
 * each term anywhere, ignoring case and diacritics, and for an unquoted term of 5 or more
 * characters with no such occurrence, the words within one edit of it.
 */
export function matchedParts(text: string, q: string | undefined): Part[] {
  const search = q === undefined ? undefined : safely(() => parseSearch(q))
  if (!search) return [{ text, matched: false }]
  // The search form of `text`, one entry per code point of it, with the code point's place in `text`.
  const forms: string[] = []
  const starts: number[] = []
  let offset = 0
  for (const character of text) {
    const form = withoutDiacritics(character.normalize('NFC').toLowerCase())
    for (const folded of form) {
      forms.push(folded)
      starts.push(offset)
    }
    offset += character.length
  }
  starts.push(text.length)
  const folded = forms.join('')
  // Code unit offsets in `folded` to code point indexes, to map matches back to `text`.
  const indexAt = new Map<number, number>()
  let unit = 0
  forms.forEach((form, index) => {
    indexAt.set(unit, index)
    unit += form.length
  })
  indexAt.set(unit, forms.length)

  const marked = new Array<boolean>(forms.length).fill(false)
  const mark = (from: number, to: number) => {
    for (let index = indexAt.get(from)!; index < indexAt.get(to)!; index++) marked[index] = true
  }
  for (const term of search.terms) {
    let found = false
    for (let at = folded.indexOf(term.text); at !== -1; at = folded.indexOf(term.text, at + 1)) {
      mark(at, at + term.text.length)
      found = true
    }
    if (found || term.quoted || [...term.text].length < MIN_APPROXIMATE_LENGTH) continue
    for (const word of folded.matchAll(/[\p{L}\p{N}]+/gu)) {
      if (withinOneEdit([...word[0]], [...term.text])) mark(word.index, word.index + word[0].length)
    }
  }

  const parts: Part[] = []
  for (let index = 0; index < forms.length; ) {
    let end = index
    while (end < forms.length && marked[end] === marked[index]) end++
    parts.push({ text: text.slice(starts[index], starts[end]), matched: marked[index]! })
    index = end
  }
  return parts.filter((part) => part.text !== '')
}

function safely<T>(read: () => T): T | undefined {
  try {
    return read()
  } catch {
    return undefined
  }
}

/**
 * `text` with what the search `q` matched in `<mark>` elements (text nodes only, so a title can
 * never inject markup; screen readers announce marked text where they support it).
 */
export function Highlighted({ text, q }: { text: string; q: string | undefined }) {
  return (
    <>
      {matchedParts(text, q).map((part, index) => (part.matched ? <mark key={index}>{part.text}</mark> : part.text))}
    </>
  )
}
