import type { ComponentChildren } from 'preact'
import { useEffect, useId, useRef, useState } from 'preact/hooks'

/** Props of {@link Modal}. */
export interface ModalProps {
  title: string
  /** Escape, or the page closing it: the dialog is then removed by its parent. */
  onClose: () => void
  children: ComponentChildren
  /** A wider dialog (the conflict's two versions). */
  wide?: boolean
}

/**
 * A modal dialog (the native `<dialog>`, opened with `showModal()`): it keeps keyboard focus
 * inside, closes on Escape, and is named by its heading. When it closes, focus goes back to
 * where it was, or to the view's heading when that element is gone (a row that was deleted).
 */
export function Modal({ title, onClose, children, wide }: ModalProps) {
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
      <h2 id={headingId}>{title}</h2>
      {children}
    </dialog>
  )
}
