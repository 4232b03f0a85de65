import type { BookPatch } from '../book/schema.js'
import { foldText } from './fold.js'

/** Patch values in the order of the update statements: title, folded title, author, folded author, year. */
export type PatchValues = [string | null, string | null, string | null, string | null, number | null]

/** The values of `patch` in the order of the update statements (absent fields are null). */
export function patchValues(patch: BookPatch): PatchValues {
  return [
    patch.title ?? null,
    patch.title === undefined ? null : foldText(patch.title),
    patch.author ?? null,
    patch.author === undefined ? null : foldText(patch.author),
    patch.year ?? null
  ]
}
