import { useId, useState } from 'preact/hooks'
import { strings } from '../../strings/index.js'
import { formatBooks } from '../../../../src/book/file-format.js'
import { BookFileError, formatOf, readRows, type BookFileFormat } from '../../transfer/book-file.js'
import { checkRows, type ImportCheck } from '../../transfer/import-check.js'
import { importKeyPrefix, runImport, type ImportOutcome } from '../../transfer/import-run.js'
import { useUi } from '../../app-context.js'
import { errorMessage } from '../../ui/error-message.js'

/** Invalid rows listed by line; more are counted (as `book-service import` does). */
const LISTED = 20

/** A file read and checked, ready to import when it has no invalid row. */
interface CheckedFile {
  name: string
  bytes: Uint8Array
  check: ImportCheck
}

/**
 * Import and export, for editors and admins. Export downloads every book (`GET /books`) as
 * NDJSON or CSV, written as `book-service export` writes them. Import reads a CSV or NDJSON file,
 * checks every row with the API's rules and lists the invalid ones by line, sending nothing while
 * any is invalid; then it sends each row as `POST /book` with an `Idempotency-Key` made from the
 * file's content and the row's line, a few at a time, with progress and a summary. Unlike
 * `book-service import` it is not all or nothing; running it again is safe.
 */
export function TransferView() {
  const { client, announce } = useUi()
  const fileId = useId()
  const [exporting, setExporting] = useState(false)
  const [exportError, setExportError] = useState<string>()
  const [file, setFile] = useState<CheckedFile>()
  const [fileError, setFileError] = useState<string>()
  const [progress, setProgress] = useState<{ done: number; total: number }>()
  const [outcome, setOutcome] = useState<ImportOutcome>()

  async function download(format: BookFileFormat) {
    setExporting(true)
    setExportError(undefined)
    try {
      const books = await client.listBooks()
      const blob = new Blob([formatBooks(books, format)], { type: format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson' })
      const url = URL.createObjectURL(blob)
      const link = document.createElement('a')
      link.href = url
      link.download = `books-${new Date().toISOString().slice(0, 10)}.${format}`
      document.body.append(link)
      link.click()
      link.remove()
      setTimeout(() => URL.revokeObjectURL(url), 60_000)
      announce(strings.transfer.exported(books.length))
    } catch (error) {
      setExportError(errorMessage(error))
    } finally {
      setExporting(false)
    }
  }

  async function choose(chosen: File | undefined) {
    setFile(undefined)
    setFileError(undefined)
    setOutcome(undefined)
    setProgress(undefined)
    if (!chosen) return
    const bytes = new Uint8Array(await chosen.arrayBuffer())
    const text = new TextDecoder().decode(bytes)
    try {
      const rows = readRows(text, formatOf(chosen.name, text))
      if (rows.length === 0) setFileError(strings.transfer.emptyFile)
      else setFile({ name: chosen.name, bytes, check: checkRows(rows) })
    } catch (error) {
      if (!(error instanceof BookFileError)) throw error
      setFileError(strings.transfer.unreadable(error.kind === 'noHeader' ? strings.transfer.noHeader : error.message))
    }
  }

  async function start(checked: CheckedFile) {
    setOutcome(undefined)
    setProgress({ done: 0, total: checked.check.rows.length })
    const result = await runImport(client, checked.check.rows, importKeyPrefix(checked.bytes), (done, total) => setProgress({ done, total }))
    setOutcome(result)
    announce(strings.transfer.stored(result.stored, result.alreadyStored))
  }

  const running = progress !== undefined && outcome === undefined
  const invalid = file?.check.invalid ?? []
  return (
    <>
      <div class="view-head">
        <h1 tabIndex={-1}>{strings.transfer.title}</h1>
      </div>
      <section class="card" aria-labelledby="export-title">
        <h2 id="export-title">{strings.transfer.exportTitle}</h2>
        <p class="muted">{strings.transfer.exportIntro}</p>
        <div class="buttons">
          <button type="button" disabled={exporting} onClick={() => void download('ndjson')}>
            {strings.transfer.exportNdjson}
          </button>
          <button type="button" disabled={exporting} onClick={() => void download('csv')}>
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
      <section class="card" aria-labelledby="import-title">
        <h2 id="import-title">{strings.transfer.importTitle}</h2>
        <p class="muted">{strings.transfer.importIntro}</p>
        <div class="field">
          <label for={fileId}>{strings.transfer.file}</label>
          <input
            id={fileId}
            type="file"
            accept=".csv,.ndjson,.jsonl,.json,text/csv,application/x-ndjson"
            disabled={running}
            onChange={(event) => void choose(event.currentTarget.files?.[0])}
          />
        </div>
        {fileError && (
          <p class="form-error" role="alert">
            {fileError}
          </p>
        )}
        {file && invalid.length > 0 && (
          <div class="import-invalid" role="alert">
            <p>{strings.transfer.invalid(invalid.length)}</p>
            <ul>
              {invalid.slice(0, LISTED).map((row) => (
                <li key={row.line}>{strings.transfer.line(row.line, row.reason)}</li>
              ))}
              {invalid.length > LISTED && <li>{strings.transfer.more(invalid.length - LISTED)}</li>}
            </ul>
          </div>
        )}
        {file && invalid.length === 0 && (
          <>
            <p role="status">{strings.transfer.valid(file.check.rows.length)}</p>
            <button type="button" class="primary" disabled={running} onClick={() => void start(file)}>
              {strings.transfer.start(file.check.rows.length)}
            </button>
          </>
        )}
        {progress && (
          <div class="progress">
            <progress aria-label={strings.transfer.progress} value={progress.done} max={progress.total} />
            <span>{strings.transfer.progressText(progress.done, progress.total)}</span>
          </div>
        )}
        {outcome && (
          <div class="import-summary" role="status">
            <p>{strings.transfer.stored(outcome.stored, outcome.alreadyStored)}</p>
            {outcome.refused.length > 0 && (
              <>
                <p>{strings.transfer.refused(outcome.refused.length)}</p>
                <ul>
                  {outcome.refused.slice(0, LISTED).map((row) => (
                    <li key={row.line}>{strings.transfer.line(row.line, row.message)}</li>
                  ))}
                  {outcome.refused.length > LISTED && <li>{strings.transfer.more(outcome.refused.length - LISTED)}</li>}
                </ul>
              </>
            )}
            {outcome.unsent.length > 0 && <p>{strings.transfer.unsent(outcome.unsent.length)}</p>}
          </div>
        )}
      </section>
    </>
  )
}
