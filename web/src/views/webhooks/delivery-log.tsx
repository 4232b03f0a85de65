import { useState } from 'preact/hooks'
import type { Delivery, Webhook } from '../../../../src/client/index.js'
import { useUi } from '../../app-context.js'
import { strings } from '../../strings/index.js'
import { DataTable, type Column } from '../../ui/data-table.js'
import { Dialog } from '../../ui/dialog.js'
import { errorMessage } from '../../ui/error-message.js'
import { Field } from '../../ui/field.js'
import { useLoad } from '../../ui/use-load.js'

const dateFormat = new Intl.DateTimeFormat(strings.locale, { dateStyle: 'medium', timeStyle: 'medium' })
const STATUSES: readonly Delivery['status'][] = ['pending', 'succeeded', 'failed']
/** The newest deliveries the log shows. */
const DELIVERY_PAGE = 50
const labels = strings.webhooks.log

const COLUMNS: Column<Delivery>[] = [
  { header: labels.columns.seq, cell: (delivery) => delivery.seq },
  { header: labels.columns.event, cell: (delivery) => delivery.event },
  { header: labels.columns.attempt, cell: (delivery) => delivery.attempt },
  { header: labels.columns.status, cell: (delivery) => labels.statuses[delivery.status] },
  { header: labels.columns.http, cell: (delivery) => delivery.http_status ?? '—' },
  { header: labels.columns.at, cell: (delivery) => dateFormat.format(new Date(delivery.at)) },
  { header: labels.columns.error, cell: (delivery) => delivery.error ?? '' }
]

/** An endpoint's delivery log in a dialog: newest first, filtered by status, with replay from a change number. */
export function DeliveryLog({ webhook, onClose }: { webhook: Webhook; onClose: () => void }) {
  const { client, announce } = useUi()
  const [status, setStatus] = useState<Delivery['status'] | ''>('')
  const deliveries = useLoad(() => client.listDeliveries(webhook.id, { limit: DELIVERY_PAGE, ...(status ? { status } : {}) }), [status])
  const [after, setAfter] = useState('0')
  const [replayError, setReplayError] = useState<string>()

  async function replay(event: Event) {
    event.preventDefault()
    if (!/^\d{1,15}$/.test(after.trim())) return setReplayError(labels.replayInvalid)
    setReplayError(undefined)
    try {
      await client.replayWebhook(webhook.id, Number(after.trim()))
      announce(labels.replayed(Number(after.trim())))
      deliveries.reload()
    } catch (failure) {
      setReplayError(errorMessage(failure))
    }
  }

  return (
    <Dialog title={labels.title(webhook.url)} onClose={onClose} wide>
      <div class="field">
        <label for="delivery-status">{labels.filter}</label>
        <select id="delivery-status" value={status} onChange={(change) => setStatus(change.currentTarget.value as Delivery['status'] | '')}>
          <option value="">{labels.all}</option>
          {STATUSES.map((name) => (
            <option key={name} value={name}>
              {labels.statuses[name]}
            </option>
          ))}
        </select>
      </div>
      <DataTable
        caption={labels.caption}
        class="deliveries"
        load={deliveries}
        loadFailed={labels.loadFailed}
        columns={COLUMNS}
        rowKey={(delivery) => delivery.id}
        rowAttributes={(delivery) => ({ 'data-status': delivery.status })}
        empty={labels.none}
      />
      <form class="replay" noValidate onSubmit={replay}>
        <Field label={labels.replay} name="replay-after" inputMode="numeric" hint={labels.replayHint} value={after} error={replayError} onInput={setAfter} />
        <button type="submit">{labels.replayButton}</button>
      </form>
    </Dialog>
  )
}
