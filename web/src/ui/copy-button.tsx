import { useState } from 'preact/hooks'
import { strings } from '../strings/index.js'

/** Props of {@link CopyButton}. */
export interface CopyButtonProps {
  /** What is copied (a token, a signing secret). */
  text: string
  /** The button's accessible name ("Copy the token"); its visible text is "Copy". */
  label: string
}

/**
 * A button that copies `text` to the clipboard (`navigator.clipboard`, which the browser allows on
 * https and on localhost) and says so beside it, in a live region. Where the browser refuses, it
 * says to select and copy the text by hand.
 */
export function CopyButton({ text, label }: CopyButtonProps) {
  const [result, setResult] = useState<string>()
  async function copy() {
    try {
      await navigator.clipboard.writeText(text)
      setResult(strings.copied)
    } catch {
      setResult(strings.copyFailed)
    }
  }
  return (
    <span class="copy">
      <button type="button" aria-label={label} onClick={() => void copy()}>
        {strings.copy}
      </button>
      <span class="copy-result" role="status">
        {result}
      </span>
    </span>
  )
}
