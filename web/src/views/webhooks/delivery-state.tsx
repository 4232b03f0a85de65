import type { Delivery, Webhook } from '../../../../src/client/index.js'
import { useUi } from '../../app-context.js'
import { strings } from '../../strings/index.js'
import { useLoad } from '../../ui/use-load.js'

const timeFormat = new Intl.DateTimeFormat(strings.locale, { timeStyle: 'short' })
const UNITS = [['day', 86_400_000], ['hour', 3_600_000], ['minute', 60_000], ['second', 1000]] as const

/** `ms` in words, in the largest whole unit (`12 minutes`, `3 hours`). */
export function duration(ms: number): string {
  const [unit, size] = UNITS.find(([, length]) => ms >= length) ?? UNITS[3]
  return new Intl.NumberFormat(strings.locale, { style: 'unit', unit, unitDisplay: 'long' }).format(Math.floor(ms / size))
}

/** The newest delivery, and when the newest one that succeeded ended (null: none has). */
interface Latest {
  last?: Delivery
  lastSuccessAt?: string | null
}

/**
 * How an endpoint's deliveries are going, under its state: its newest delivery (change, status,
 * attempts, the receiver's answer or the error, the next attempt) and, when that one has not
 * succeeded, its lag: how long since a delivery last succeeded. Read from the delivery log
 * (`GET /webhooks/{id}/deliveries`, newest first).
 */
export function DeliveryState({ webhook }: { webhook: Webhook }) {
  const { client } = useUi()
  const latest = useLoad<Latest>(async () => {
    const [last] = await client.listDeliveries(webhook.id, { limit: 1 })
    if (!last || last.status === 'succeeded') return { last, lastSuccessAt: last?.at }
    const [success] = await client.listDeliveries(webhook.id, { limit: 1, status: 'succeeded' })
    return { last, lastSuccessAt: success?.at ?? null }
  }, [webhook])
  const { last, lastSuccessAt } = latest.data ?? {}
  if (latest.error) return <span class="delivery-state">{latest.error}</span>
  if (!latest.data) return null
  if (!last) return <span class="delivery-state">{strings.webhooks.noDelivery}</span>
  const labels = strings.webhooks
  // The receiver's status, and the error unless it only repeats that status (`answered 500`).
  const error = last.status === 'succeeded' || last.error === null || (last.http_status !== null && last.error.includes(String(last.http_status))) ? '' : last.error
  const answer = [last.http_status === null ? '' : `HTTP ${last.http_status}`, error].filter(Boolean).join(', ')
  const next = last.next_attempt_at ? `; ${labels.nextAttempt(timeFormat.format(new Date(last.next_attempt_at)))}` : ''
  return (
    <>
      <span class={last.status === 'succeeded' ? 'delivery-state' : 'delivery-state failing'} data-delivery-status={last.status}>
        {labels.lastDelivery(last.seq, labels.log.statuses[last.status], last.attempt, answer)}
        {next}
      </span>
      {last.status !== 'succeeded' && (
        <span class="delivery-state failing">{lastSuccessAt ? labels.behind(duration(Date.now() - Date.parse(lastSuccessAt))) : labels.neverSucceeded}</span>
      )}
    </>
  )
}
