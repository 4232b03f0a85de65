import { useId } from 'preact/hooks'
import { DEFAULT_PAGE_SIZE, PAGE_SIZES } from '../../routing/view-state.js'
import { strings } from '../../strings/index.js'

/** Props of {@link Pager}. */
export interface PagerProps {
  /** The page size in the URL (undefined: the default). */
  limit?: string
  onLimit: (limit: string | undefined) => void
  /** Books on this page. */
  count: number
  /** How many books come before this page, when the page knows (it came here page by page). */
  offset?: number
  /** Books matching the filters (`X-Total-Count`). */
  total?: number
  atStart: boolean
  first: () => void
  previous?: () => void
  next?: () => void
}

/**
 * Paging: where this page is ("Books 26 to 50 of 120"), the page size, and the first, previous
 * and next pages. The API pages by position, not by number, so "previous" is the page this one
 * was reached from; from a link to a later page, "first page" is always there.
 */
export function Pager(props: PagerProps) {
  const sizeId = useId()
  const { count, offset, total } = props
  let range = ''
  if (count > 0 && total !== undefined) {
    range = offset === undefined ? strings.books.showingSome(count, total) : strings.books.showing(offset + 1, offset + count, total)
  }
  return (
    <nav class="pager" aria-label={strings.books.paging}>
      <p class="range" aria-live="polite">
        {range}
      </p>
      <div class="page-size">
        <label for={sizeId}>{strings.books.pageSize}</label>
        <select
          id={sizeId}
          value={props.limit ?? DEFAULT_PAGE_SIZE}
          onChange={(event) => {
            const value = event.currentTarget.value
            props.onLimit(value === DEFAULT_PAGE_SIZE ? undefined : value)
          }}
        >
          {PAGE_SIZES.map((size) => (
            <option key={size} value={size}>
              {size}
            </option>
          ))}
        </select>
      </div>
      <div class="page-buttons">
        <button type="button" disabled={props.atStart} onClick={props.first}>
          {strings.books.firstPage}
        </button>
        <button type="button" disabled={props.previous === undefined || props.atStart} onClick={props.previous}>
          {strings.books.previousPage}
        </button>
        <button type="button" disabled={props.next === undefined} onClick={props.next}>
          {strings.books.nextPage}
        </button>
      </div>
    </nav>
  )
}
