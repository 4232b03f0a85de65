import type { ComponentChildren } from 'preact'
import { strings } from '../strings/index.js'
import { Modal } from './modal.js'

/** Props of {@link Dialog}. */
export interface DialogProps {
  /** The heading, which names the dialog. */
  title: string
  /** Escape or Close: the parent removes the dialog. */
  onClose: () => void
  children: ComponentChildren
  /** The dialog's buttons (Save, Delete, Cancel): a footer that stays in view. */
  footer?: ComponentChildren
  /** A wider dialog, for a table. */
  wide?: boolean
}

/**
 * The page's dialog: a {@link Modal} whose header holds its heading and a Close button, both
 * always in view (the body scrolls between header and footer, docs/web-page.md "Dialogs"). A form
 * in a dialog puts its submit button in `footer` with `form="<the form's id>"`.
 */
export function Dialog({ title, onClose, children, footer, wide }: DialogProps) {
  return (
    <Modal title={title} onClose={onClose} closeLabel={strings.close} footer={footer} wide={wide}>
      {children}
    </Modal>
  )
}
