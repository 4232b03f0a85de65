import { randomUUID } from 'node:crypto'
import type { Account, Role } from '../../account/schema.js'

/**
 * An account as stored: {@link Account} plus its scrypt hash and its token generation, a random
 * value replaced whenever the account changes password or role (and gone when it is deleted), so
 * tokens carrying an older generation are refused (docs/accounts.md "Accounts and roles").
 */
export interface StoredAccount extends Account {
  passwordHash: string
  generation: string
}

/** The part of an account the revocation check needs. */
export interface AccountGeneration {
  role: Role
  generation: string
}

/** A change of {@link AccountStore.update}: the absent fields keep their values. */
export interface AccountUpdate {
  passwordHash?: string
  role?: Role
}

/** The answer of a write refused because it would leave no admin. */
export const LAST_ADMIN = 'last-admin'

/**
 * Where accounts live: the `accounts` table of the book database (migration 0003), on SQLite or
 * PostgreSQL. Usernames are unique ignoring case (`usernameKey`); lookups ignore case too.
 * Every write is committed before it resolves. The checks that keep at least one admin and the
 * write they guard are one transaction, serialised against other account writes.
 */
export interface AccountStore {
  /** Every account, by username key. */
  list(): Promise<Account[]>
  /** The account with this username (any case), or undefined. */
  find(username: string): Promise<StoredAccount | undefined>
  /** The role and generation of this username (any case), or undefined when it has no account. */
  generation(username: string): Promise<AccountGeneration | undefined>
  /** Stores a new account; `'exists'` when the username (ignoring case) is taken, or its confusable skeleton (`account/skeleton.ts`). */
  create(account: { username: string; passwordHash: string; role: Role }): Promise<Account | 'exists'>
  /**
   * Stores the bootstrap admin (`AUTH_USERNAME`) only when no admin exists yet (first start).
   *
   * @returns true when it was stored.
   */
  createFirstAdmin(username: string, passwordHash: () => Promise<string>): Promise<boolean>
  /** Applies `change` (a new generation when anything changes); `'missing'`, or {@link LAST_ADMIN} for demoting the last admin. */
  update(username: string, change: AccountUpdate): Promise<Account | 'missing' | typeof LAST_ADMIN>
  /** Removes the account; `'missing'`, or {@link LAST_ADMIN} for the last admin. */
  delete(username: string): Promise<'deleted' | 'missing' | typeof LAST_ADMIN>
}

/** A fresh token generation (random, so a re-created account never revives old tokens). */
export function newGeneration(): string {
  return randomUUID()
}

/** The {@link Account} part of a stored account (never the hash or the generation). */
export function publicAccount(account: Account): Account {
  return { username: account.username, role: account.role, created_at: account.created_at, updated_at: account.updated_at }
}
