import { MIN_APPROXIMATE_LENGTH, type Search, type SearchTerm } from '../../book/search.js'

/** Fewest characters (combining marks aside) a trigram index can look up. */
const TRIGRAM = 3

/** Whether the trigram indexes can look `piece` up: three characters besides combining marks. */
function indexable(piece: string): boolean {
  return [...piece.replace(/\p{M}/gu, '')].length >= TRIGRAM
}

/**
 * What a book matching `term` holds (in search form, in its title or author): a list of
 * alternatives, each a list of texts it holds all of; or undefined when no index can find them.
 *
 * Exact terms: the term itself. A term that may match a word within one edit (unquoted, five or
 * more characters): a word one substitution away at position i keeps the term's characters before
 * i and those after it; an insertion there keeps those and more, a deletion joins them; a
 * transposition is a text of its own. So the alternatives are, for each position, the two sides
 * (those of three characters or more: one side always is, from six characters on) and each
 * transposition. A five-character term with its middle character replaced keeps two characters
 * each side, which no trigram index can look up: such a term is not narrowed.
 */
export function termPieces(term: SearchTerm): string[][] | undefined {
  const characters = [...term.text]
  if (term.quoted || characters.length < MIN_APPROXIMATE_LENGTH) return indexable(term.text) ? [[term.text]] : undefined
  if (characters.length === MIN_APPROXIMATE_LENGTH) return undefined
  const alternatives: string[][] = []
  for (let i = 0; i < characters.length; i++) {
    const sides = [characters.slice(0, i).join(''), characters.slice(i + 1).join('')].filter(indexable)
    if (sides.length === 0) return undefined
    alternatives.push(sides)
  }
  for (let i = 0; i + 1 < characters.length; i++) {
    const swapped = [...characters]
    ;[swapped[i], swapped[i + 1]] = [swapped[i + 1]!, swapped[i]!]
    alternatives.push([swapped.join('')])
  }
  return alternatives
}

/**
 * What the search index is asked for `search` (docs/search.md "Search"): one group per term it can
 * narrow, each a list of alternatives (a book holds every text of at least one). Terms it cannot
 * narrow (one or two characters, or five for their one-edit matches) leave the other terms to
 * narrow the candidates; with no group at all, the search scans.
 */
export function indexPieces(search: Search): string[][][] {
  const groups: string[][][] = []
  for (const term of search.terms) {
    const pieces = termPieces(term)
    if (pieces) groups.push(pieces)
  }
  return groups
}

/**
 * What the search index is asked for the books holding every term exactly (the ranks before
 * `approximate`): one group per term it can look up, the term itself. Terms it cannot (one or two
 * characters) leave the others to narrow; with no group, undefined.
 */
export function exactPieces(search: Search): string[][][] | undefined {
  const groups = search.terms.filter((term) => indexable(term.text)).map((term) => [[term.text]])
  return groups.length > 0 ? groups : undefined
}
