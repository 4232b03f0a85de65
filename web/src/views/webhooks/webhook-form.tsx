import { useState } from 'preact/hooks'
import { BookServiceError, type Webhook, type WebhookInput } from '../../../../src/client/index.js'
import { strings } from '../../strings/index.js'
import { Field } from '../../ui/field.js'
import { useSubmit } from '../../ui/use-submit.js'
import { checkUrl, endpointWithUrl } from './url-check.js'

type Operation = 'created' | 'updated' | 'deleted'
const OPERATIONS: readonly Operation[] = ['created', 'updated', 'deleted']

/** Props of {@link WebhookForm}. */
export interface WebhookFormProps {
  /** The endpoint edited; absent: a new one. */
  webhook?: Webhook
  /** The endpoints listed, to say so before a second endpoint gets the same URL. */
  others: readonly Webhook[]
  submitLabel: string
  /** Sends what the form holds (`POST /webhooks` or `PUT /webhooks/{id}`); a rejection is shown in the form. */
  onSubmit: (input: Required<Pick<WebhookInput, 'url' | 'events'>> & { description: string }) => Promise<void>
}

/**
 * An endpoint's URL, events and description, checked before sending: the URL's shape and address
 * (`url-check.ts`), at least one event, and a word before a second endpoint gets a URL already
 * listed (sent only after "Add it anyway"). A 400 names the reasons the service refuses a URL for.
 */
export function WebhookForm({ webhook, others, submitLabel, onSubmit }: WebhookFormProps) {
  const [url, setUrl] = useState(webhook?.url ?? '')
  const [description, setDescription] = useState(webhook?.description ?? '')
  const [events, setEvents] = useState<Operation[]>(webhook ? [...webhook.events] : [...OPERATIONS])
  const [submitted, setSubmitted] = useState(false)
  const [duplicateAllowed, setDuplicateAllowed] = useState<string>()
  const { busy, message, setMessage, run } = useSubmit()
  const check = checkUrl(url)
  const duplicate = url !== '' && !check.error ? endpointWithUrl(others, url, webhook?.id) : undefined

  async function submit(event: Event, allowDuplicate = false) {
    event.preventDefault()
    setSubmitted(true)
    if (check.error || events.length === 0) return
    if (duplicate && !allowDuplicate && duplicateAllowed !== url) return setMessage(strings.webhooks.duplicate(duplicate.url))
    if (allowDuplicate) setDuplicateAllowed(url)
    await run(
      async () => {
        await onSubmit({ url, events, description: description.trim() })
        if (!webhook) {
          setUrl('')
          setDescription('')
          setEvents([...OPERATIONS])
          setSubmitted(false)
        }
      },
      (error) => (error instanceof BookServiceError && error.status === 400 ? strings.webhooks.urlRefused(check.refusal) : undefined)
    )
  }

  const urlError = (submitted || url !== '') && check.error ? check.error : undefined
  return (
    <form noValidate onSubmit={(event) => void submit(event)}>
      <Field label={strings.webhooks.url} name="webhook-url" autoComplete="off" hint={strings.webhooks.urlHint} value={url} error={urlError} note={check.warning} onInput={setUrl} />
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
                const checked = change.currentTarget.checked
                setEvents(OPERATIONS.filter((item) => (item === operation ? checked : events.includes(item))))
              }}
            />
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
        <div class="form-error" role="alert">
          <p>{message}</p>
          {duplicate && message === strings.webhooks.duplicate(duplicate.url) && (
            <button type="button" onClick={(click) => void submit(click, true)}>
              {strings.webhooks.addAnyway}
            </button>
          )}
        </div>
      )}
      <button type="submit" class="primary" disabled={busy}>
        {busy ? strings.saving : submitLabel}
      </button>
    </form>
  )
}
