import type { Account, AccountChange, AccountInput, Role } from '../../../src/client/index.js'
import { call, type Caller } from './request.js'

export type { Account, AccountChange, AccountInput, Role }

const userPath = (username: string) => `/users/${encodeURIComponent(username)}`

/** `GET /users` (admin): every account. */
export async function listAccounts(caller: Caller): Promise<Account[]> {
  return (await call<Account[]>(caller, 'GET', '/users')).data
}

/** `POST /users` (admin): 409 `User already exists` when the name is taken, ignoring case. */
export async function createAccount(caller: Caller, input: AccountInput): Promise<Account> {
  return (await call<Account>(caller, 'POST', '/users', { body: input })).data
}

/** `PUT /users/{username}` (admin): a new role and/or password; 409 `Cannot remove the last admin`. */
export async function updateAccount(caller: Caller, username: string, change: AccountChange): Promise<Account> {
  return (await call<Account>(caller, 'PUT', userPath(username), { body: change })).data
}

/** `DELETE /users/{username}` (admin): 409 `Cannot remove the last admin`. */
export async function deleteAccount(caller: Caller, username: string): Promise<void> {
  await call<null>(caller, 'DELETE', userPath(username))
}
