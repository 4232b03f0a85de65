import { useEffect, useReducer, useState } from 'preact/hooks'
import type { Delivery, Webhook } from '../../../../src/client/index.js'
import { strings } from '../../strings/index.js'
import { useUi } from '../../app-context.js'
import { errorMessage } from '../../ui/error-message.js'
import { Field } from '../../ui/field.js'
import { Modal } from '../../ui/modal.js'

const dateFormat = new Intl.DateTimeFormat(strings.locale, { dateStyle: 'medium', timeStyle: 'medium' })
const STATUSES: readonly Delivery['status'][] = ['pending', 'succeeded', 'failed']
/** The newest deliveries the log shows. */
const DELIVERY_PAGE = 50

/** An endpoint's delivery log in a dialog: newest first, filtered by status, with replay from a change number. */
export function DeliveryLog({ webhook, onClose }: { webhook: Webhook; onClose: () => void }) {
  const { client, announce } = useUi()
  const [status, setStatus] = useState<Delivery['status'] | ''>('')
  const [deliveries, setDeliveries] = useState<Delivery[]>()
  const [error, setError] = useState<string>()
  const [after, setAfter] = useState('0')
  const [replayError, setReplayError] = useState<string>()
  const [reloads, reload] = useReducer((count: number, _action: void) => count + 1, 0)
  const labels = strings.webhooks.log

  useEffect(() => {
    let current = true
    client.listDeliveries(webhook.id, { limit: DELIVERY_PAGE, ...(status ? { status } : {}) }).then(
      (list) => current && (setDeliveries(list), setError(undefined)),
      (failure: unknown) => current && setError(errorMessage(failure))
    )
    return () => {
      current = false
    }
  }, [status, reloads])

  async function replay(event: Event) {
    event.preventDefault()
    if (!/^\d{1,15}$/.test(after.trim())) return setReplayError(labels.replayInvalid)
    setReplayError(undefined)
    try {
      await client.replayWebhook(webhook.id, Number(after.trim()))
      announce(labels.replayed(Number(after.trim())))
      reload()
    } catch (failure) {
      setReplayError(errorMessage(failure))
    }
  }

  return (
    <Modal title={labels.title(webhook.url)} onClose={onClose} wide>
      <div class="field">
        <label for="delivery-status">{labels.filter}</label>
        <select id="delivery-status" value={status} onChange={(change) => setStatus((change.currentTarget as HTMLSelectElement).value as Delivery['status'] | '')}>
          <option value="">{labels.all}</option>
          {STATUSES.map((name) => (
            <option key={name} value={name}>
              {labels.statuses[name]}
            </option>
          ))}
        </select>
      </div>
      {error && (
        <p class="form-error" role="alert">
          {error}
        </p>
      )}
      {deliveries && deliveries.length === 0 && <p>{labels.none}</p>}
      {deliveries && deliveries.length > 0 && (
        <div class="table-wrap">
          <table class="deliveries">
            <caption class="visually-hidden">{labels.caption}</caption>
            <thead>
              <tr>
                <th scope="col">{labels.columns.seq}</th>
                <th scope="col">{labels.columns.event}</th>
                <th scope="col">{labels.columns.attempt}</th>
                <th scope="col">{labels.columns.status}</th>
                <th scope="col">{labels.columns.http}</th>
                <th scope="col">{labels.columns.at}</th>
                <th scope="col">{labels.columns.error}</th>
              </tr>
            </thead>
            <tbody>
              {deliveries.map((delivery) => (
                <tr key={delivery.id} data-status={delivery.status}>
                  <td data-label={labels.columns.seq}>{delivery.seq}</td>
                  <td data-label={labels.columns.event}>{delivery.event}</td>
                  <td data-label={labels.columns.attempt}>{delivery.attempt}</td>
                  <td data-label={labels.columns.status}>{labels.statuses[delivery.status]}</td>
                  <td data-label={labels.columns.http}>{delivery.http_status ?? '—'}</td>
                  <td data-label={labels.columns.at}>{dateFormat.format(new Date(delivery.at))}</td>
                  <td data-label={labels.columns.error}>{delivery.error ?? ''}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <form class="replay" noValidate onSubmit={replay}>
        <Field label={labels.replay} name="replay-after" inputMode="numeric" hint={labels.replayHint} value={after} error={replayError} onInput={setAfter} />
        <button type="submit">{labels.replayButton}</button>
      </form>
      <button type="button" onClick={onClose}>
        {labels.close}
      </button>
    </Modal>
  )
}
