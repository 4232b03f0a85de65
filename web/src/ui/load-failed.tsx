import { strings } from '../strings/index.js'

/** Props of {@link LoadFailed}. */
export interface LoadFailedProps {
  /** What could not be loaded ("The books could not be loaded."). */
  what: string
  /** Why, as `errorMessage` (error-message.ts) says it. */
  error: string
  onRetry: () => void
}

/** A failed load, read out at once, with its "Try again" button. */
export function LoadFailed({ what, error, onRetry }: LoadFailedProps) {
  return (
    <div class="notice" role="alert">
      <p>
        {what} {error}
      </p>
      <button type="button" onClick={() => onRetry()}>
        {strings.retry}
      </button>
    </div>
  )
}
