import { useState } from 'preact/hooks'
import { BookServiceError } from '../../../src/client/index.js'
import { errorMessage } from './error-message.js'

/** What {@link useSubmit} gives a form: whether it is sending, its message, and the way to send. */
export interface Submit {
  /** True while a send runs: the form disables its submit button and says "Saving…". */
  busy: boolean
  /** The form's message (`<p class="form-error" role="alert">`): why the last send failed, or a check's. */
  message: string | undefined
  setMessage: (text: string | undefined) => void
  /**
   * Clears the message and runs `send` with `busy` set. A failure becomes the message: what
   * `explain` says of it when it says something, else nothing for a 401 (the client's
   * `onUnauthorized` ends the session) and {@link errorMessage} for the rest. Never rejects.
   */
  run: (send: () => Promise<void>, explain?: (failure: unknown) => string | undefined) => Promise<void>
}

/**
 * The submit of a form or a confirmation: the busy flag, the message from a refusal's envelope
 * (`BookServiceError.message` through {@link errorMessage} or the form's own `explain`), and the
 * 401 left to the session. `explain` may also act on a failure itself (mark a field) and return
 * undefined.
 */
export function useSubmit(): Submit {
  const [busy, setBusy] = useState(false)
  const [message, setMessage] = useState<string>()

  async function run(send: () => Promise<void>, explain?: (failure: unknown) => string | undefined) {
    setBusy(true)
    setMessage(undefined)
    try {
      await send()
    } catch (failure) {
      const text = explain?.(failure)
      if (text !== undefined) setMessage(text)
      else if (!(failure instanceof BookServiceError && failure.status === 401)) setMessage(errorMessage(failure))
    } finally {
      setBusy(false)
    }
  }

  return { busy, message, setMessage, run }
}
