import { usernameKey, type Account, type Role } from '../../account/schema.js'
import type { AccountStatements } from './account-statements.js'
import {
  LAST_ADMIN,
  newGeneration,
  publicAccount,
  type AccountUpdate,
  type AccountGeneration,
  type AccountStore,
  type StoredAccount
} from '../contracts/account-store.js'

/**
 * One engine's side of the accounts: its statements, and its write transaction.
 */
export interface AccountEngine {
  /** The statements outside any transaction (reads, and a create's single insert). */
  readonly statements: AccountStatements
  /**
   * Runs `work` in one write transaction, serialised against every other account write (of this
   * process, another process on the same database, or another instance): committed when `work`
   * resolves, rolled back when it rejects.
   */
  transaction<T>(work: (statements: AccountStatements) => Promise<T>): Promise<T>
}

/**
 * The username key of `username` (`usernameKey`), or undefined when it holds a NUL character:
 * no account can have one (a username may not hold a control character, and PostgreSQL text
 * cannot even store it), so such a name is answered as unknown without asking the database,
 * where PostgreSQL would fail the statement (a 500) instead of finding nothing (a 404).
 */
export function storedKey(username: string): string | undefined {
  const key = usernameKey(username)
  return key.includes('\0') ? undefined : key
}

/**
 * The confusable skeleton of `username` (`account/skeleton.ts`). Its module is loaded on the first
 * account created, not at start-up: the confusables table it builds is only needed then.
 */
async function skeletonOf(username: string): Promise<string> {
  return (await import('../../account/skeleton.js')).usernameSkeleton(username)
}

/** True when `account` is the only admin and would stop being one (`role` undefined: deleted). */
async function demotesLastAdmin(statements: AccountStatements, account: Account, role: Role | undefined): Promise<boolean> {
  return account.role === 'admin' && role !== 'admin' && (await statements.admins()) <= 1
}

/**
 * The {@link AccountStore} of both engines: the rules of accounts written once over an engine's
 * statements and transaction (`sqlite-account-store.ts`, `postgres-account-store.ts`). A username is one
 * account whatever its case, and no new username may look like an existing one (the same
 * confusable skeleton, `account/skeleton.ts`: 'exists'); every create or change draws a new token generation; and no write
 * leaves the database without an admin: the check and the write it guards are one transaction.
 * Accounts change rarely and skip the books' group commit: SQLite writes them in `BEGIN IMMEDIATE`
 * on the database's main connection, PostgreSQL in a transaction holding an advisory lock, so
 * processes and instances do not race.
 */
export class AccountRules implements AccountStore {
  constructor(private readonly engine: AccountEngine) {}

  list(): Promise<Account[]> {
    return this.engine.statements.list()
  }

  async find(username: string): Promise<StoredAccount | undefined> {
    const key = storedKey(username)
    return key === undefined ? undefined : this.engine.statements.find(key)
  }

  async generation(username: string): Promise<AccountGeneration | undefined> {
    const key = storedKey(username)
    return key === undefined ? undefined : this.engine.statements.generation(key)
  }

  async create(account: { username: string; passwordHash: string; role: Role }): Promise<Account | 'exists'> {
    const now = new Date().toISOString()
    const { username, passwordHash, role } = account
    const stored = await this.engine.statements.insert([usernameKey(username), username, await skeletonOf(username), passwordHash, role, newGeneration(), now, now])
    return stored ? { username, role, created_at: now, updated_at: now } : 'exists'
  }

  async createFirstAdmin(username: string, passwordHash: () => Promise<string>): Promise<boolean> {
    if ((await this.engine.statements.admins()) > 0) return false
    const hash = await passwordHash()
    const skeleton = await skeletonOf(username)
    return this.engine.transaction(async (statements) => {
      if ((await statements.admins()) > 0) return false
      const now = new Date().toISOString()
      return statements.insert([usernameKey(username), username, skeleton, hash, 'admin', newGeneration(), now, now])
    })
  }

  async update(username: string, change: AccountUpdate): Promise<Account | 'missing' | typeof LAST_ADMIN> {
    const key = storedKey(username)
    if (key === undefined) return 'missing'
    return this.engine.transaction(async (statements): Promise<Account | 'missing' | typeof LAST_ADMIN> => {
      const current = await statements.find(key)
      if (current === undefined) return 'missing'
      if (change.passwordHash === undefined && change.role === undefined) return publicAccount(current)
      if (await demotesLastAdmin(statements, current, change.role ?? current.role)) return LAST_ADMIN
      return statements.update([change.passwordHash ?? null, change.role ?? null, newGeneration(), new Date().toISOString(), key])
    })
  }

  async delete(username: string): Promise<'deleted' | 'missing' | typeof LAST_ADMIN> {
    const key = storedKey(username)
    if (key === undefined) return 'missing'
    return this.engine.transaction(async (statements): Promise<'deleted' | 'missing' | typeof LAST_ADMIN> => {
      const current = await statements.find(key)
      if (current === undefined) return 'missing'
      if (await demotesLastAdmin(statements, current, undefined)) return LAST_ADMIN
      await statements.delete(key)
      return 'deleted'
    })
  }
}
