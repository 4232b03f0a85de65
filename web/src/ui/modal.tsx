import type { ComponentChildren } from 'preact'
import { useEffect, useId, useRef, useState } from 'preact/hooks'

/** Props of {@link Modal}. */
export interface ModalProps {
  title: string
  /** Escape, the header's Close button, or the page closing it: the dialog is then removed by its parent. */
  onClose: () => void
  children: ComponentChildren
  /** A wider dialog (the conflict's two versions, a delivery log). */
  wide?: boolean
  /** When given, a button of this text in the header closes the dialog: it stays in view however long the body is. */
  closeLabel?: string
  /** The dialog's buttons, below the body and always in view (the body scrolls between header and footer). */
  footer?: ComponentChildren
}

/**
 * A modal dialog (the native `<dialog>`, opened with `showModal()`): it keeps keyboard focus
 * inside, closes on Escape, and is named by its heading. Its header (the heading, and the Close
 * button when `closeLabel` is given) and its footer stay in view; the body between them scrolls,
 * so on a phone a long dialog's Close is never a long way down. When it closes, focus goes back
 * to where it was, or to the view's heading when that element is gone (a row that was deleted).
 * Views use {@link Dialog} (`ui/dialog.tsx`), which always has the Close button.
 */
export function Modal({ title, onClose, children, wide, closeLabel, footer }: ModalProps) {
  const dialog = useRef<HTMLDialogElement>(null)
  const headingId = useId()
  // Read while rendering, in the same task as the click that opened it: by the time effects run,
  // a list arriving from the network may have re-rendered and taken the focus away.
  const [opener] = useState(() => document.activeElement as HTMLElement | null)
  useEffect(() => {
    const element = dialog.current!
    element.showModal()
    return () => {
      if (element.open) element.close()
      // At once when the opener is still there; else once this render is done (the opener may be
      // back by then), or the view's heading.
      if (opener?.isConnected) opener.focus()
      else {
        setTimeout(() => {
          if (document.activeElement !== document.body && document.activeElement !== null) return
          if (opener?.isConnected) opener.focus()
          else document.querySelector<HTMLElement>('main h1')?.focus()
        })
      }
    }
  }, [])
  return (
    <dialog
      ref={dialog}
      class={wide ? 'modal modal-wide' : 'modal'}
      aria-labelledby={headingId}
      onCancel={(event) => {
        event.preventDefault()
        onClose()
      }}
    >
      <div class="modal-head">
        <h2 id={headingId}>{title}</h2>
        {closeLabel && (
          <button type="button" class="modal-close" onClick={onClose}>
            {closeLabel}
          </button>
        )}
      </div>
      <div class="modal-body">{children}</div>
      {footer && <div class="modal-foot buttons">{footer}</div>}
    </dialog>
  )
}
