import type { Account } from '../../../src/client/index.js'
import { ApiError, call, type Caller } from './request.js'

/** The service's message for a wrong current password (docs/accounts.md "Accounts and roles"). */
export const WRONG_CURRENT_PASSWORD = 'Current password is incorrect'

/**
 * `PUT /users/{username}/password` (any role, the token's own account): 401 `Current password is
 * incorrect` when `current` is wrong, which does not end the session (any other 401 does). The
 * change revokes the account's tokens, the one used included: sign in again with `next`.
 */
export async function changeOwnPassword(caller: Caller, username: string, current: string, next: string): Promise<Account> {
  try {
    const path = `/users/${encodeURIComponent(username)}/password`
    return (await call<Account>({ ...caller, onUnauthorized: undefined }, 'PUT', path, { body: { current_password: current, new_password: next } })).data
  } catch (error) {
    if (error instanceof ApiError && error.status === 401 && error.message !== WRONG_CURRENT_PASSWORD) caller.onUnauthorized?.()
    throw error
  }
}
