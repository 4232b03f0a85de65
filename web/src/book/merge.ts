import type { BookInput } from '../../../src/client/index.js'
import { BOOK_FIELDS, type BookField } from './rules.js'

/** The outcome of {@link mergeBooks}. */
export interface BookMerge {
  /** Each field: the side that changed it, or the common value; `mine` for the fields in `conflicts`. */
  merged: BookInput
  /** Fields both sides changed, to different values: the person chooses. */
  conflicts: BookField[]
  /** Fields only the other side changed (taken from theirs without asking). */
  theirs: BookField[]
}

const same = (a: unknown, b: unknown) => String(a) === String(b)

/**
 * A three-way merge of a book, field by field (docs/web-page.md "Web page", Conflicts): `base` is the
 * version the editor opened, `mine` what the form holds, `theirs` the version stored now. A field
 * only one side changed takes that side's value; a field both changed to the same value keeps it;
 * a field both changed differently is a conflict (`merged` holds mine for it until the person
 * chooses). Values compare as text, so the year `1965` and `"1965"` are the same.
 */
export function mergeBooks(base: BookInput, mine: BookInput, theirs: BookInput): BookMerge {
  const merged = { ...mine }
  const conflicts: BookField[] = []
  const fromTheirs: BookField[] = []
  for (const field of BOOK_FIELDS) {
    if (same(mine[field], theirs[field])) continue
    if (same(mine[field], base[field])) {
      ;(merged as Record<BookField, unknown>)[field] = theirs[field]
      fromTheirs.push(field)
    } else if (!same(theirs[field], base[field])) conflicts.push(field)
  }
  return { merged, conflicts, theirs: fromTheirs }
}
