import { foldText } from './fold.js'
import type { Book } from './schema.js'

/**
 * The search of `GET /books?q=…` (docs/contract.md "Search"; docs/search.md "Search"): its terms, its match and
 * its ranking, in one place for both engines. The stores only narrow the books down with an index
 * (`searchStatement` in storage/sql/list.ts); every candidate is then checked here, so SQLite and PostgreSQL answer
 * exactly alike.
 */

/**
 * The letters whose diacritics search ignores, and their base letters, position for position:
 * lower-case Latin letters (U+00C0–U+024F, U+1E00–U+1EFF) whose canonical decomposition is one
 * a–z letter and combining marks, and which SQLite's FTS5 `trigram remove_diacritics 1` tokenizer
 * also folds to that letter (test/book/search-fold.test.ts checks it on the bundled SQLite).
 * Migration 0009 gives the same pair to PostgreSQL's `translate`: changing them needs a new
 * migration.
 */
export const DIACRITIC_LETTERS =
  'àáâãäåçèéêëìíîïñòóôõöùúûüýÿāăąćĉċčďēĕėęěĝğġģĥĩīĭįĵķĺļľńņňōŏőŕŗřśŝşšţťũūŭůűųŵŷźżžơưǎǐǒǔǖǘǚǜǟǧǩǫǭǰǵǹǻȁȃȅȇȉȋȍȏȑȓȕȗșțȟȧȩȫȭȯȱȳḁḃḅḇḉḋḍḏḑḓḕḗḙḛḝḟḡḣḥḧḩḫḭḯḱḳḵḷḹḻḽḿṁṃṅṇṉṋṍṏṑṓṕṗṙṛṝṟṡṣṥṧṩṫṭṯṱṳṵṷṹṻṽṿẁẃẅẇẉẋẍẏẑẓẕẖẗẘẙạảấầẩẫậắằẳẵặẹẻẽếềểễệỉịọỏốồổỗộớờởỡợụủứừửữựỳỵỷỹ'
/** The base letter of each of {@link DIACRITIC_LETTERS}, in the same order. */
export const BASE_LETTERS =
  'aaaaaaceeeeiiiinooooouuuuyyaaaccccdeeeeegggghiiiijklllnnnooorrrssssttuuuuuuwyzzzouaiouuuuuagkoojgnaaaeeiioorruusthaeooooyabbbcdddddeeeeefghhhhhiikkkllllmmmnnnnoooopprrrrsssssttttuuuuuvvwwwwwxxyzzzhtwyaaaaaaaaaaaaeeeeeeeeiioooooooooooouuuuuuuyyyy'

const BASE_OF = new Map([...DIACRITIC_LETTERS].map((letter, index) => [letter, BASE_LETTERS[index]!]))

/**
 * The search form of a folded text (`foldText`, src/book/fold.ts, as stored in `title_folded` and
 * `author_folded`): each of {@link DIACRITIC_LETTERS} replaced by its base letter, one code point
 * for one (PostgreSQL's `translate` with the same pair gives the same text).
 */
export function withoutDiacritics(folded: string): string {
  // Most titles are ASCII: nothing to replace (a search checks every candidate's title and author).
  return ASCII.test(folded) ? folded : folded.replace(DIACRITIC_LETTER, (letter) => BASE_OF.get(letter)!)
}

const ASCII = /^\p{ASCII}*$/u
const DIACRITIC_LETTER = new RegExp(`[${DIACRITIC_LETTERS}]`, 'gu')

/** The search form of a title, an author or a query: folded, then {@link withoutDiacritics}. */
export function searchForm(text: string): string {
  return withoutDiacritics(foldText(text))
}

/** Longest `q`, in code points after trimming (docs/contract.md "Search"). */
export const MAX_SEARCH_LENGTH = 200
/** Shortest unquoted term that also matches a word within one edit. */
export const MIN_APPROXIMATE_LENGTH = 5

/** One term of a search, in search form. */
export interface SearchTerm {
  text: string
  /** Written between double quotes: matched as a substring only, never within one edit. */
  quoted: boolean
}

/** A parsed `q`: the whole text and its terms, both in search form. */
export interface Search {
  text: string
  terms: SearchTerm[]
}

/**
 * Parses `q`: trimmed; split on white space (what `String.prototype.trim` removes) into terms; a
 * double-quoted part is one term (an unclosed quote runs to the end; `""` is no term).
 *
 * @returns undefined when `q` has no term (empty, white space, only quotes): as if absent.
 * @throws RangeError when `q` is longer than {@link MAX_SEARCH_LENGTH} code points after trimming.
 */
export function parseSearch(q: string): Search | undefined {
  const trimmed = q.trim()
  if ([...trimmed].length > MAX_SEARCH_LENGTH) throw new RangeError('q is too long')
  const terms: SearchTerm[] = []
  let current = ''
  let quoted = false
  const close = () => {
    if (current !== '') terms.push({ text: searchForm(current), quoted })
    current = ''
  }
  for (const character of trimmed) {
    if (character === '"') {
      close()
      quoted = !quoted
    } else if (!quoted && /\s/u.test(character)) {
      close()
    } else {
      current += character
    }
  }
  close()
  return terms.length === 0 ? undefined : { text: searchForm(trimmed), terms }
}

/** The relevance ranks, best first (docs/contract.md "Search"). */
export const Rank = {
  exactTitle: 0,
  titleStart: 1,
  titleWordStart: 2,
  inTitle: 3,
  authorOnly: 4,
  approximate: 5
} as const

const WORD = /[\p{L}\p{N}]+/gu
const LETTER_OR_DIGIT = /[\p{L}\p{N}]/u

/** The words of a text: maximal runs of letters and digits. */
function wordsOf(text: string): string[] {
  return text.match(WORD) ?? []
}

/**
 * Whether `a` and `b` (code point arrays) are at most one edit apart: one insertion, deletion,
 * substitution or transposition of adjacent characters (Damerau).
 */
export function withinOneEdit(a: readonly string[], b: readonly string[]): boolean {
  if (a.length < b.length) [a, b] = [b, a]
  if (a.length - b.length > 1) return false
  let start = 0
  while (start < b.length && a[start] === b[start]) start++
  if (start === a.length) return true
  if (a.length > b.length) {
    for (let i = start; i < b.length; i++) if (a[i + 1] !== b[i]) return false
    return true
  }
  // Same length: one substitution, or one transposition of the differing character with the next.
  const rest = (from: number) => {
    for (let i = from; i < a.length; i++) if (a[i] !== b[i]) return false
    return true
  }
  return rest(start + 1) || (a[start] === b[start + 1] && a[start + 1] === b[start] && rest(start + 2))
}

/** Whether `term` starts a word somewhere in `text` (at its start, or after a non-letter, non-digit). */
function startsWord(text: string, term: string): boolean {
  for (let at = text.indexOf(term); at !== -1; at = text.indexOf(term, at + 1)) {
    if (at === 0) return true
    const before = String.fromCodePoint(text.codePointAt(at - 1)!)
    // A low surrogate before `at` is the second half of a letter: look at the whole code point.
    const previous = /[\udc00-\udfff]/.test(before) && at >= 2 ? text.slice(at - 2, at) : before
    if (!LETTER_OR_DIGIT.test(previous)) return true
  }
  return false
}

/**
 * How a book matches `search`, as its relevance rank ({@link Rank}), or undefined when it does
 * not match: every term must occur in the title or the author (search forms) as a substring, or,
 * for an unquoted term of at least {@link MIN_APPROXIMATE_LENGTH} characters, be within one edit
 * of a word of either; a book that needs such an edit ranks `approximate`.
 */
export function rankOf(search: Search, title: string, author: string): number | undefined {
  const titleForm = searchForm(title)
  const authorForm = searchForm(author)
  let approximate = false
  for (const term of search.terms) {
    if (titleForm.includes(term.text) || authorForm.includes(term.text)) continue
    const characters = [...term.text]
    if (term.quoted || characters.length < MIN_APPROXIMATE_LENGTH) return undefined
    const near = (word: string) => withinOneEdit([...word], characters)
    if (!wordsOf(titleForm).some(near) && !wordsOf(authorForm).some(near)) return undefined
    approximate = true
  }
  if (approximate) return Rank.approximate
  if (titleForm === search.text) return Rank.exactTitle
  if (titleForm.startsWith(search.text)) return Rank.titleStart
  if (search.terms.some((term) => startsWord(titleForm, term.text))) return Rank.titleWordStart
  if (search.terms.some((term) => titleForm.includes(term.text))) return Rank.inTitle
  return Rank.authorOnly
}

/** The relevance rank of `book` for `search`, for the cursor of the next page (0 when it does not match). */
export function relevanceOf(search: Search, book: Book): number {
  return rankOf(search, book.title, book.author) ?? 0
}
