import { useState } from 'preact/hooks'
import type { ApiToken, CreatedApiToken } from '../../../../src/client/index.js'
import { useUi } from '../../app-context.js'
import { strings } from '../../strings/index.js'
import { CopyButton } from '../../ui/copy-button.js'
import { DataTable, type Column } from '../../ui/data-table.js'
import { Dialog } from '../../ui/dialog.js'
import { SafeText } from '../../ui/safe-text.js'
import { useLoad } from '../../ui/use-load.js'
import { CreateApiToken } from './create-api-token.js'
import { RevokeApiToken } from './revoke-api-token.js'

const dateFormat = new Intl.DateTimeFormat(strings.locale, { dateStyle: 'medium', timeStyle: 'short' })
const labels = strings.apiTokens

/** `time` (RFC 3339) in the reader's words, or `none` when null. */
const when = (time: string | null, none: string) => (time === null ? none : dateFormat.format(new Date(time)))

/** The columns: name, the account (only in the list of every account's), role, times. */
function columns(all: boolean): Column<ApiToken>[] {
  return [
    { header: labels.columns.name, cell: (token) => <SafeText text={token.name} /> },
    ...(all ? [{ header: labels.columns.username, cell: (token: ApiToken) => <SafeText text={token.username ?? ''} /> }] : []),
    { header: labels.columns.role, cell: (token) => strings.accounts.roles[token.role] },
    { header: labels.columns.created, cell: (token) => when(token.created_at, '') },
    { header: labels.columns.expires, cell: (token) => when(token.expires_at, labels.never) },
    { header: labels.columns.lastUsed, cell: (token) => when(token.last_used_at, labels.neverUsed) }
  ]
}

/**
 * The API tokens (`/tokens`, docs/api-tokens.md), for every signed-in account: its tokens newest
 * first with when each was last used (an admin may show every account's), a form that makes one
 * and shows it once with a Copy button, and Revoke after a confirmation.
 */
export function ApiTokensView() {
  const { client, session, announce } = useUi()
  const [all, setAll] = useState(false)
  const tokens = useLoad(() => client.listApiTokens({ all }), [all])
  const [created, setCreated] = useState<CreatedApiToken>()
  const [revoking, setRevoking] = useState<ApiToken>()

  return (
    <>
      <div class="view-head">
        <h1 tabIndex={-1}>{labels.title}</h1>
      </div>
      <p class="muted">{labels.help}</p>
      {session.rights.admin && (
        <label class="checkbox-line">
          <input type="checkbox" checked={all} onChange={(change) => setAll(change.currentTarget.checked)} /> {labels.all}
        </label>
      )}
      <DataTable
        caption={labels.caption}
        class="api-tokens"
        load={tokens}
        loadFailed={labels.loadFailed}
        columns={columns(all)}
        rowKey={(token) => token.id}
        rowAttributes={(token) => ({ 'data-token': token.id })}
        empty={labels.none}
        actions={(token) => (
          <button type="button" class="danger" aria-label={labels.revokeOf(token.name)} onClick={() => setRevoking(token)}>
            {labels.revoke}
          </button>
        )}
      />
      <CreateApiToken
        onCreated={(token) => {
          announce(labels.created(token.name))
          setCreated(token)
          tokens.reload()
        }}
      />
      {created && (
        <Dialog
          title={labels.createdTitle(created.name)}
          onClose={() => setCreated(undefined)}
          footer={
            <button type="button" class="primary" onClick={() => setCreated(undefined)}>
              {labels.done}
            </button>
          }
        >
          <p>{labels.createdHelp}</p>
          <p>
            <code class="secret-text" data-token-value>
              {created.token}
            </code>
          </p>
          <CopyButton text={created.token} label={labels.copyToken} />
        </Dialog>
      )}
      {revoking && (
        <RevokeApiToken
          token={revoking}
          onClose={() => setRevoking(undefined)}
          onRevoked={() => {
            announce(labels.revoked(revoking.name))
            setRevoking(undefined)
            tokens.reload()
          }}
        />
      )}
    </>
  )
}
