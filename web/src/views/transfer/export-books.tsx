import { useState } from 'preact/hooks'
import { formatBooks } from '../../../../src/book/file-format.js'
import type { BookFileFormat } from '../../transfer/book-file.js'
import { useUi } from '../../app-context.js'
import { strings } from '../../strings/index.js'
import { errorMessage } from '../../ui/error-message.js'

/** Saves `text` as the file `name` through a download link (the page has no other way to write a file). */
function download(text: string, name: string, type: string): void {
  const url = URL.createObjectURL(new Blob([text], { type }))
  const link = document.createElement('a')
  link.href = url
  link.download = name
  document.body.append(link)
  link.click()
  link.remove()
  setTimeout(() => URL.revokeObjectURL(url), 60_000)
}

/**
 * The Export section: every book (`GET /books`) downloaded as NDJSON or CSV, written as
 * `book-service export` writes them (src/book/file-format.ts).
 */
export function ExportBooks() {
  const { client, announce } = useUi()
  const [exporting, setExporting] = useState(false)
  const [exportError, setExportError] = useState<string>()

  async function exportAs(format: BookFileFormat) {
    setExporting(true)
    setExportError(undefined)
    try {
      const books = await client.listBooks()
      const type = format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson'
      download(formatBooks(books, format), `books-${new Date().toISOString().slice(0, 10)}.${format}`, type)
      announce(strings.transfer.exported(books.length))
    } catch (error) {
      setExportError(errorMessage(error))
    } finally {
      setExporting(false)
    }
  }

  return (
    <section class="card" aria-labelledby="export-title">
      <h2 id="export-title">{strings.transfer.exportTitle}</h2>
      <p class="muted">{strings.transfer.exportIntro}</p>
      <div class="buttons">
        <button type="button" disabled={exporting} onClick={() => void exportAs('ndjson')}>
          {strings.transfer.exportNdjson}
        </button>
        <button type="button" disabled={exporting} onClick={() => void exportAs('csv')}>
          {strings.transfer.exportCsv}
        </button>
      </div>
      {exporting && <p aria-busy="true">{strings.transfer.exporting}</p>}
      {exportError && (
        <p class="form-error" role="alert">
          {exportError}
        </p>
      )}
    </section>
  )
}
