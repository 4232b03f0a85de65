import { useEffect, useReducer, useState } from 'preact/hooks'
import type { Account } from '../../../../src/client/index.js'
import { strings } from '../../strings/index.js'
import { useUi } from '../../app-context.js'
import { errorMessage } from '../../ui/error-message.js'
import { AccountDialog, type AccountAction } from './account-dialog.js'
import { AddAccount } from './add-account.js'
import { SafeText } from '../../ui/safe-text.js'

const dateFormat = new Intl.DateTimeFormat(strings.locale, { dateStyle: 'medium', timeStyle: 'short' })

/**
 * The accounts, for admins (`/users`): the list, a form to add one with its role, and on each
 * row changing the role, resetting the password and deleting. The service's refusals are shown
 * as messages, the last admin's 409 included.
 */
export function AccountsView() {
  const { client, announce } = useUi()
  const [accounts, setAccounts] = useState<Account[]>()
  const [error, setError] = useState<string>()
  const [reloads, reload] = useReducer((count: number, _action: void) => count + 1, 0)
  const [action, setAction] = useState<AccountAction>()

  useEffect(() => {
    let current = true
    client.listUsers().then(
      (list) => {
        if (!current) return
        setAccounts(list)
        setError(undefined)
      },
      (failure: unknown) => current && setError(errorMessage(failure))
    )
    return () => {
      current = false
    }
  }, [reloads])

  return (
    <>
      <div class="view-head">
        <h1 tabIndex={-1}>{strings.accounts.title}</h1>
      </div>
      <p class="muted">{strings.accounts.roleHelp}</p>
      {error && (
        <div class="notice" role="alert">
          <p>
            {strings.accounts.loadFailed} {error}
          </p>
          <button type="button" onClick={() => reload()}>
            {strings.books.retry}
          </button>
        </div>
      )}
      {!accounts && !error && <p aria-busy="true">{strings.loading}</p>}
      {accounts && (
        <div class="table-wrap">
          <table class="accounts">
            <caption class="visually-hidden">{strings.accounts.caption}</caption>
            <thead>
              <tr>
                <th scope="col">{strings.accounts.columns.username}</th>
                <th scope="col">{strings.accounts.columns.role}</th>
                <th scope="col">{strings.accounts.columns.created}</th>
                <th scope="col">{strings.accounts.columns.updated}</th>
                <th scope="col" class="actions">
                  {strings.accounts.columns.actions}
                </th>
              </tr>
            </thead>
            <tbody>
              {accounts.map((account) => (
                <tr key={account.username} data-username={account.username}>
                  <td data-label={strings.accounts.columns.username}>
                    <SafeText text={account.username} />
                  </td>
                  <td data-label={strings.accounts.columns.role}>{strings.accounts.roles[account.role]}</td>
                  <td data-label={strings.accounts.columns.created}>{dateFormat.format(new Date(account.created_at))}</td>
                  <td data-label={strings.accounts.columns.updated}>{dateFormat.format(new Date(account.updated_at))}</td>
                  <td class="actions">
                    <button type="button" aria-label={strings.accounts.changeRoleOf(account.username)} onClick={() => setAction({ kind: 'role', account })}>
                      {strings.accounts.changeRole}
                    </button>
                    <button
                      type="button"
                      aria-label={strings.accounts.resetPasswordOf(account.username)}
                      onClick={() => setAction({ kind: 'password', account })}
                    >
                      {strings.accounts.resetPassword}
                    </button>
                    <button type="button" class="danger" aria-label={strings.accounts.deleteOf(account.username)} onClick={() => setAction({ kind: 'delete', account })}>
                      {strings.accounts.delete}
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <AddAccount
        onAdded={(account) => {
          announce(strings.accounts.created(account.username))
          reload()
        }}
      />
      {action && (
        <AccountDialog
          action={action}
          onClose={() => setAction(undefined)}
          onDone={(text) => {
            setAction(undefined)
            announce(text)
            reload()
          }}
        />
      )}
    </>
  )
}
