import { useId, useState } from 'preact/hooks'
import { strings } from '../../strings/index.js'
import { BookFileError, formatOf, readRows } from '../../transfer/book-file.js'
import { checkRows, type ImportCheck } from '../../transfer/import-check.js'
import { importKeyPrefix, runImport, type ImportOutcome } from '../../transfer/import-run.js'
import { useUi } from '../../app-context.js'
import { ExportBooks } from './export-books.js'
import { RowList } from './row-list.js'

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
  const [file, setFile] = useState<CheckedFile>()
  const [fileError, setFileError] = useState<string>()
  const [progress, setProgress] = useState<{ done: number; total: number }>()
  const [outcome, setOutcome] = useState<ImportOutcome>()

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
      <ExportBooks />
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
            <RowList rows={invalid} />
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
                <RowList rows={outcome.refused.map(({ line, message }) => ({ line, reason: message }))} />
              </>
            )}
            {outcome.unsent.length > 0 && <p>{strings.transfer.unsent(outcome.unsent.length)}</p>}
          </div>
        )}
      </section>
    </>
  )
}
