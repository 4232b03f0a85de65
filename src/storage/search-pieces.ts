import { MIN_APPROXIMATE_LENGTH, type Search, type SearchTerm } from '../book/search.js'

/** Fewest characters (combining marks aside) a trigram index can look up. */
const TRIGRAM = 3

/** Whether the trigram indexes can look `piece` up: three characters besides combining marks. */
function indexable(piece: string): boolean {
  return [...piece.replace(/\p{M}/gu, '')].length >= TRIGRAM
}

/**
 * The texts one of which a book matching `term` holds (in search form, in its title or author),
 * or undefined when no index can find them.
 *
 * Exact terms: the term itself. A term that may match a word within one edit (unquoted, five or
 * more characters): a word one insertion or substitution away keeps, intact, the term's
 * characters before the edit or those after it, one side of at least three characters (hence one
 * of the term's trigrams), except for a five-character term with its middle character replaced;
 * a deletion or a transposition is a text of its own. So the pieces are the term's trigrams, its
 * deletions and its transpositions, and a five-character term cannot be narrowed by trigrams.
 */
function termPieces(term: SearchTerm): string[] | undefined {
  const characters = [...term.text]
  if (term.quoted || characters.length < MIN_APPROXIMATE_LENGTH) return indexable(term.text) ? [term.text] : undefined
  if (characters.length === MIN_APPROXIMATE_LENGTH) return undefined
  const pieces = new Set<string>()
  for (let i = 0; i + TRIGRAM <= characters.length; i++) pieces.add(characters.slice(i, i + TRIGRAM).join(''))
  for (let i = 0; i < characters.length; i++) pieces.add([...characters.slice(0, i), ...characters.slice(i + 1)].join(''))
  for (let i = 0; i + 1 < characters.length; i++) {
    const swapped = [...characters]
    ;[swapped[i], swapped[i + 1]] = [swapped[i + 1]!, swapped[i]!]
    pieces.add(swapped.join(''))
  }
  const all = [...pieces]
  if (!all.every(indexable)) return undefined
  // A piece holding another is implied by it: only the smallest ones are looked up.
  return all.filter((piece) => !all.some((other) => other !== piece && piece.includes(other)))
}

/**
 * What the search index is asked for `search` (README "Search"): one group per term it can
 * narrow, each a list of texts one of which a matching book holds. Terms it cannot narrow (one or
 * two characters, or five for their one-edit matches) leave the other terms to narrow the
 * candidates; with no group at all, the search scans.
 */
export function indexPieces(search: Search): string[][] {
  const groups: string[][] = []
  for (const term of search.terms) {
    const pieces = termPieces(term)
    if (pieces) groups.push(pieces)
  }
  return groups
}
