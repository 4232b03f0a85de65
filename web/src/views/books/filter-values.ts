import type { ListQuery } from '../../api/books.js'
import { yearBounds } from '../../book/rules.js'
import { strings } from '../../strings/index.js'

/** The filters of the list, as typed. */
export interface FilterValues {
  q: string
  author: string
  year_min: string
  year_max: string
}

/** The filters `query` holds, as the fields show them. */
export const valuesOf = (query: ListQuery): FilterValues => ({
  q: query.q ?? '',
  author: query.author ?? '',
  year_min: query.year_min ?? '',
  year_max: query.year_max ?? ''
})

/** Whether `query` filters the list at all. */
export function hasFilters(query: ListQuery): boolean {
  return Boolean(query.q || query.title || query.author || query.year_min || query.year_max)
}

/** The message for a year filter that the API would refuse, if any. */
export function yearError(label: string, text: string): string | undefined {
  if (text.trim() === '') return undefined
  const { minimum, maximum } = yearBounds()
  const valid = /^-?[0-9]{1,4}$/.test(text.trim()) && Number(text) >= minimum && Number(text) <= maximum
  return valid ? undefined : strings.books.yearFilter(label, minimum, maximum)
}

/**
 * `query` with the filters `next` holds in place of its own (a year the API would refuse left
 * out); `clearAll` also removes a title filter.
 */
export function withFilters(query: ListQuery, next: FilterValues, clearAll: boolean): ListQuery {
  const filters: ListQuery = { ...query, q: undefined, author: undefined, year_min: undefined, year_max: undefined }
  // A title filter comes from a link only (no field shows it): "Clear filters" removes it too.
  if (clearAll) filters.title = undefined
  if (next.q.trim() !== '') filters.q = next.q
  // A sort by id was the default without a search: it stays the default when the search ends.
  if (filters.q === undefined && filters.sort === 'id') filters.sort = undefined
  if (next.author !== '') filters.author = next.author
  if (next.year_min.trim() !== '' && !yearError('', next.year_min)) filters.year_min = next.year_min.trim()
  if (next.year_max.trim() !== '' && !yearError('', next.year_max)) filters.year_max = next.year_max.trim()
  return filters
}
