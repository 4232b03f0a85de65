import { useEffect, useId, useRef, useState } from 'preact/hooks'
import type { ListQuery } from '../../api/books.js'
import { strings } from '../../strings/index.js'
import { Field } from '../../ui/field.js'
import { hasFilters, valuesOf, withFilters, yearError, type FilterValues } from './filter-values.js'

/** How long typing may pause before the list follows. */
const TYPING_PAUSE_MS = 300

/** The year range's two fields. */
const YEAR_FILTERS = [
  { name: 'year_min', label: strings.books.yearFrom },
  { name: 'year_max', label: strings.books.yearTo }
] as const

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
    const filters = withFilters(query, next, clearAll)
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
        {YEAR_FILTERS.map(({ name, label }) => (
          <Field key={name} label={label} name={name} inputMode="numeric" value={values[name]} error={yearError(label, values[name])} onInput={(value) => update(name, value)} />
        ))}
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
