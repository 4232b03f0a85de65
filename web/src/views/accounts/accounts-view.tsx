import { useState } from 'preact/hooks'
import type { Account } from '../../../../src/client/index.js'
import { useUi } from '../../app-context.js'
import { strings } from '../../strings/index.js'
import { DataTable, type Column } from '../../ui/data-table.js'
import { SafeText } from '../../ui/safe-text.js'
import { useLoad } from '../../ui/use-load.js'
import { AccountDialog, type AccountAction } from './account-dialog.js'
import { AddAccount } from './add-account.js'

const dateFormat = new Intl.DateTimeFormat(strings.locale, { dateStyle: 'medium', timeStyle: 'short' })
const labels = strings.accounts

const COLUMNS: Column<Account>[] = [
  { header: labels.columns.username, cell: (account) => <SafeText text={account.username} /> },
  { header: labels.columns.role, cell: (account) => labels.roles[account.role] },
  { header: labels.columns.created, cell: (account) => dateFormat.format(new Date(account.created_at)) },
  { header: labels.columns.updated, cell: (account) => dateFormat.format(new Date(account.updated_at)) }
]

/**
 * The accounts, for admins (`/users`): the list, a form to add one with its role, and on each
 * row changing the role, resetting the password and deleting. The service's refusals are shown
 * as messages, the last admin's 409 included.
 */
export function AccountsView() {
  const { client, announce } = useUi()
  const accounts = useLoad(() => client.listUsers())
  const [action, setAction] = useState<AccountAction>()

  return (
    <>
      <div class="view-head">
        <h1 tabIndex={-1}>{labels.title}</h1>
      </div>
      <p class="muted">{labels.roleHelp}</p>
      <DataTable
        caption={labels.caption}
        class="accounts"
        load={accounts}
        loadFailed={labels.loadFailed}
        columns={COLUMNS}
        rowKey={(account) => account.username}
        rowAttributes={(account) => ({ 'data-username': account.username })}
        empty=""
        actions={(account) => (
          <>
            <button type="button" aria-label={labels.changeRoleOf(account.username)} onClick={() => setAction({ kind: 'role', account })}>
              {labels.changeRole}
            </button>
            <button type="button" aria-label={labels.resetPasswordOf(account.username)} onClick={() => setAction({ kind: 'password', account })}>
              {labels.resetPassword}
            </button>
            <button type="button" class="danger" aria-label={labels.deleteOf(account.username)} onClick={() => setAction({ kind: 'delete', account })}>
              {labels.delete}
            </button>
          </>
        )}
      />
      <AddAccount
        onAdded={(account) => {
          announce(labels.created(account.username))
          accounts.reload()
        }}
      />
      {action && (
        <AccountDialog
          action={action}
          onClose={() => setAction(undefined)}
          onDone={(text) => {
            setAction(undefined)
            announce(text)
            accounts.reload()
          }}
        />
      )}
    </>
  )
}
