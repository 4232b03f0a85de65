import { useRef } from 'preact/hooks'
import type { BookPage, ListQuery } from '../../api/books.js'
import { apiQuery } from '../../routing/view-state.js'
import { Pager } from './pager.js'

/** Where the list's current page stands, as {@link usePositions} knows it. */
interface Positions {
  /** How many books come before this page, when the page was reached page by page. */
  offset: number | undefined
  /** The `after` of the page this one was reached from; absent: not known (a link to a later page). */
  previous: { after: string | undefined } | undefined
  /** Notes that the page at `cursor` follows this one (call before going there). */
  follow: (cursor: string) => void
}

/** The list's settings without its position: a new filter or sort starts at the first page. */
const filterKey = (query: ListQuery) => JSON.stringify(apiQuery({ ...query, after: undefined }))

/**
 * Where each page starts, by its `after`, and which page came before it: paging is by position
 * (keyset), so the page remembers the way it came for "Previous" and the "Books 26 to 50" line.
 * A new filter or sort forgets the way.
 */
function usePositions(query: ListQuery): Positions {
  const positions = useRef({ key: '', offsets: new Map<string | undefined, number>(), previous: new Map<string | undefined, string | undefined>() })
  if (positions.current.key !== filterKey(query)) {
    positions.current = { key: filterKey(query), offsets: new Map([[undefined, 0]]), previous: new Map() }
  }
  const { offsets, previous } = positions.current
  const offset = offsets.get(query.after)
  return {
    offset,
    previous: previous.has(query.after) ? { after: previous.get(query.after) } : undefined,
    follow: (cursor) => {
      if (offset !== undefined) offsets.set(cursor, offset + Number(apiQuery(query).limit))
      previous.set(cursor, query.after)
    }
  }
}

/** Props of {@link BookPager}. */
export interface BookPagerProps {
  query: ListQuery
  /** The page shown; undefined while the first one loads or after a failure. */
  page: BookPage | undefined
  navigate: (query: ListQuery) => void
}

/** The book list's {@link Pager}, moving by the cursors the pages give and the way it came. */
export function BookPager({ query, page, navigate }: BookPagerProps) {
  const positions = usePositions(query)
  const goTo = (after: string | undefined) => navigate({ ...query, after })
  const count = page?.books.length ?? 0
  if (count === 0 && query.after === undefined) return null
  return (
    <Pager
      limit={query.limit}
      onLimit={(size) => navigate({ ...query, limit: size, after: undefined })}
      count={count}
      offset={positions.offset}
      total={page?.total}
      atStart={query.after === undefined}
      previous={positions.previous && (() => goTo(positions.previous!.after))}
      first={() => goTo(undefined)}
      next={
        page?.cursor === undefined
          ? undefined
          : () => {
              positions.follow(page.cursor!)
              goTo(page.cursor)
            }
      }
    />
  )
}
