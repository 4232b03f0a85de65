import { useEffect, useReducer, useState } from 'preact/hooks'
import { errorMessage } from './error-message.js'

/** What {@link useLoad} gives a view: the last value loaded, the error of the last try, and a way to load again. */
export interface Load<T> {
  /** The last value loaded; kept while a reload runs, so a table does not blink. Undefined until the first one arrives. */
  data: T | undefined
  /** What to tell the person when the last try failed ({@link errorMessage}); undefined once a try succeeds. */
  error: string | undefined
  /** True while a try runs. */
  loading: boolean
  /** Loads again (after a change, or from a "Try again" button). */
  reload: () => void
}

/**
 * Loads a view's data with `load`, again whenever a value in `deps` changes or `reload` is
 * called. An answer that arrives after a newer try started, or after the view is gone, is
 * dropped. A failure becomes a message for the person (`error`), never a thrown error; the
 * caller passes `onError` for a failure it handles itself (it returns true: not shown).
 */
export function useLoad<T>(load: () => Promise<T>, deps: readonly unknown[] = [], onError?: (failure: unknown) => boolean): Load<T> {
  const [reloads, reload] = useReducer((count: number, _action: void) => count + 1, 0)
  const [state, setState] = useState<{ data?: T; error?: string; loading: boolean }>({ loading: true })
  useEffect(() => {
    let current = true
    setState((previous) => ({ ...previous, loading: true }))
    load().then(
      (data) => current && setState({ data, loading: false }),
      (failure: unknown) => {
        if (!current) return
        const handled = onError?.(failure) ?? false
        setState((previous) => ({ data: previous.data, error: handled ? undefined : errorMessage(failure), loading: false }))
      }
    )
    return () => {
      current = false
    }
  }, [...deps, reloads])
  return { data: state.data, error: state.error, loading: state.loading, reload }
}
