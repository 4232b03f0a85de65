import { useEffect, useRef, useState } from 'preact/hooks'
import { BookServiceError, type Book, type BookInput, type TaggedBook } from '../../../../src/client/index.js'
import { useUi } from '../../app-context.js'
import { errorMessage } from '../../ui/error-message.js'

/** The edited book's stored versions, as {@link useStoredBook} keeps them. */
export interface StoredBook {
  /** True until the book is read. */
  loading: boolean
  /** The book is gone (404): the form offers to add it again. */
  deleted: boolean
  setDeleted: (deleted: boolean) => void
  /** The `ETag` of the version an edit is saved over. */
  etag: string | undefined
  /** The version the person started from: the one opened, then the stored one each merge was made with. */
  base: { readonly current: BookInput | undefined }
  /** True while the book is read (a change of the live feed then is not someone else's). */
  reading: { readonly current: boolean }
  /** Makes `stored` the version to save over and to merge against. */
  take: (stored: TaggedBook) => void
}

/**
 * Reads the book `id` once, when given (`GET /book/{id}` with its `ETag`): `onRead` receives it
 * for the fields, `onFailure` the message of a failure other than 404 (which sets `deleted`).
 */
export function useStoredBook(id: number | undefined, onRead: (book: Book) => void, onFailure: (message: string) => void): StoredBook {
  const { client } = useUi()
  const [etag, setEtag] = useState<string>()
  const [loading, setLoading] = useState(id !== undefined)
  const [deleted, setDeleted] = useState(false)
  const base = useRef<BookInput | undefined>(undefined)
  const reading = useRef(id !== undefined)

  function take(stored: TaggedBook) {
    base.current = stored.book
    setEtag(stored.etag)
  }

  useEffect(() => {
    if (id === undefined) return
    client.getTaggedBook(id).then(
      (current) => {
        reading.current = false
        onRead(current.book)
        take(current)
        setLoading(false)
      },
      (error: unknown) => {
        reading.current = false
        setLoading(false)
        if (error instanceof BookServiceError && error.status === 404) setDeleted(true)
        else onFailure(errorMessage(error))
      }
    )
  }, [])

  return { loading, deleted, setDeleted, etag, base, reading, take }
}
