import { useEffect, useId, useRef, useState } from 'preact/hooks'
import type { ListQuery } from '../../api/books.js'
import { yearBounds } from '../../book/rules.js'
import { strings } from '../../strings/index.js'
import { Field } from '../../ui/field.js'

/** The filters of the list, as typed. */
interface FilterValues {
  q: string
  author: string
  year_min: string
  year_max: string
}

/** How long typing may pause before the list follows. */
const TYPING_PAUSE_MS = 300

const valuesOf = (query: ListQuery): FilterValues => ({
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
function yearError(label: string, text: string): string | undefined {
  if (text.trim() === '') return undefined
  const { minimum, maximum } = yearBounds()
  const valid = /^-?[0-9]{1,4}$/.test(text.trim()) && Number(text) >= minimum && Number(text) <= maximum
  return valid ? undefined : strings.books.yearFilter(label, minimum, maximum)
}

/** Props of {@link BookFilters}. */
export interface BookFiltersProps {
  query: ListQuery
  /** The query with the new filters (only valid ones), once typing pauses or on Enter. */
  onChange: (query: ListQuery) => void
}

/**
 * The search box (titles and authors, as the API's `q` finds them: docs/search.md "Search") and the filters by author
 * and year range (`author`, `year_min`, `year_max`), applied as the person types. A year the API
 * would refuse is marked next to its field and not applied. On a phone the filters other than the
 * search box fold behind a "Filters" button (`aria-expanded`), which counts the ones in use.
 */
export function BookFilters({ query, onChange }: BookFiltersProps) {
  const [values, setValues] = useState(() => valuesOf(query))
  const [open, setOpen] = useState(false)
  const foldId = useId()
  const inUse = [query.author, query.year_min, query.year_max].filter(Boolean).length
  const applied = useRef(JSON.stringify(valuesOf(query)))
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined)
  const errors = {
    year_min: yearError(strings.books.yearFrom, values.year_min),
    year_max: yearError(strings.books.yearTo, values.year_max)
  }

  // A change that did not come from typing here (a link, Back, "Clear filters") shows in the fields.
  const incoming = JSON.stringify(valuesOf(query))
  useEffect(() => {
    if (incoming !== applied.current) {
      applied.current = incoming
      setValues(valuesOf(query))
    }
  }, [incoming])
  useEffect(() => () => clearTimeout(timer.current), [])

  function apply(next: FilterValues, clearAll = false) {
    clearTimeout(timer.current)
    const filters: ListQuery = { ...query, q: undefined, author: undefined, year_min: undefined, year_max: undefined }
    // A title filter comes from a link only (no field shows it): "Clear filters" removes it too.
    if (clearAll) filters.title = undefined
    if (next.q.trim() !== '') filters.q = next.q
    // A sort by id was the default without a search: it stays the default when the search ends.
    if (filters.q === undefined && filters.sort === 'id') filters.sort = undefined
    if (next.author !== '') filters.author = next.author
    if (next.year_min.trim() !== '' && !yearError('', next.year_min)) filters.year_min = next.year_min.trim()
    if (next.year_max.trim() !== '' && !yearError('', next.year_max)) filters.year_max = next.year_max.trim()
    applied.current = JSON.stringify(valuesOf(filters))
    if (applied.current !== incoming) onChange(filters)
  }

  function update(name: keyof FilterValues, value: string) {
    const next = { ...values, [name]: value }
    setValues(next)
    clearTimeout(timer.current)
    timer.current = setTimeout(() => apply(next), TYPING_PAUSE_MS)
  }

  return (
    <form
      class={open ? 'filters open' : 'filters'}
      role="search"
      aria-label={strings.books.filters}
      onSubmit={(event) => {
        event.preventDefault()
        apply(values)
      }}
    >
      <Field label={strings.books.search} type="search" name="q" value={values.q} onInput={(value) => update('q', value)} />
      <button type="button" class="filters-toggle" aria-expanded={open ? 'true' : 'false'} aria-controls={foldId} onClick={() => setOpen(!open)}>
        {strings.books.moreFilters(inUse)}
      </button>
      <div class="folded" id={foldId}>
      <Field label={strings.books.author} name="author" value={values.author} onInput={(value) => update('author', value)} />
      <Field
        label={strings.books.yearFrom}
        name="year_min"
        inputMode="numeric"
        value={values.year_min}
        error={errors.year_min}
        onInput={(value) => update('year_min', value)}
      />
      <Field
        label={strings.books.yearTo}
        name="year_max"
        inputMode="numeric"
        value={values.year_max}
        error={errors.year_max}
        onInput={(value) => update('year_max', value)}
      />
      {hasFilters(query) && (
        <button
          type="button"
          class="link-button"
          onClick={() => {
            const cleared = { q: '', author: '', year_min: '', year_max: '' }
            setValues(cleared)
            apply(cleared, true)
          }}
        >
          {strings.books.clearFilters}
        </button>
      )}
      </div>
    </form>
  )
}
