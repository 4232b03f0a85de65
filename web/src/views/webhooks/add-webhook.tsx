import { useState } from 'preact/hooks'
import { BookServiceError, type CreatedWebhook } from '../../../../src/client/index.js'
import { strings } from '../../strings/index.js'
import { useUi } from '../../app-context.js'
import { errorMessage } from '../../ui/error-message.js'
import { Field } from '../../ui/field.js'

type Operation = 'created' | 'updated' | 'deleted'
const OPERATIONS: readonly Operation[] = ['created', 'updated', 'deleted']

/** Whether `text` is an absolute http(s) URL (the service checks the address itself). */
function validUrl(text: string): boolean {
  try {
    const url = new URL(text)
    return url.protocol === 'http:' || url.protocol === 'https:'
  } catch {
    return false
  }
}

/** The form that adds an endpoint (`POST /webhooks`); the new secret goes to `onAdded`. */
export function AddWebhook({ onAdded }: { onAdded: (created: CreatedWebhook) => void }) {
  const { client } = useUi()
  const [url, setUrl] = useState('')
  const [description, setDescription] = useState('')
  const [events, setEvents] = useState<Operation[]>([...OPERATIONS])
  const [submitted, setSubmitted] = useState(false)
  const [busy, setBusy] = useState(false)
  const [message, setMessage] = useState<string>()
  const urlError = (submitted || url !== '') && !validUrl(url) ? strings.webhooks.urlInvalid : undefined

  async function submit(event: Event) {
    event.preventDefault()
    setSubmitted(true)
    if (!validUrl(url) || events.length === 0) return
    setBusy(true)
    setMessage(undefined)
    try {
      const created = await client.createWebhook({ url, events, ...(description.trim() ? { description: description.trim() } : {}) })
      setUrl('')
      setDescription('')
      setEvents([...OPERATIONS])
      setSubmitted(false)
      onAdded(created)
    } catch (error) {
      if (!(error instanceof BookServiceError && error.status === 401)) setMessage(errorMessage(error))
    } finally {
      setBusy(false)
    }
  }

  return (
    <form class="card add-webhook" noValidate onSubmit={submit} aria-labelledby="add-webhook-title">
      <h2 id="add-webhook-title">{strings.webhooks.add}</h2>
      <Field label={strings.webhooks.url} name="webhook-url" autoComplete="off" hint={strings.webhooks.urlHint} value={url} error={urlError} onInput={setUrl} />
      <fieldset class="webhook-events">
        <legend>{strings.webhooks.eventsLegend}</legend>
        {OPERATIONS.map((operation) => (
          <label key={operation}>
            <input
              type="checkbox"
              name="webhook-events"
              value={operation}
              checked={events.includes(operation)}
              onChange={(change) => {
                const checked = (change.currentTarget as HTMLInputElement).checked
                setEvents(OPERATIONS.filter((item) => (item === operation ? checked : events.includes(item))))
              }}
            />{' '}
            {strings.webhooks.events[operation]}
          </label>
        ))}
        {submitted && events.length === 0 && (
          <p class="field-error" role="alert">
            {strings.webhooks.eventsInvalid}
          </p>
        )}
      </fieldset>
      <Field label={strings.webhooks.description} name="webhook-description" autoComplete="off" value={description} onInput={setDescription} />
      {message && (
        <p class="form-error" role="alert">
          {message}
        </p>
      )}
      <button type="submit" class="primary" disabled={busy}>
        {busy ? strings.saving : strings.webhooks.add}
      </button>
    </form>
  )
}
