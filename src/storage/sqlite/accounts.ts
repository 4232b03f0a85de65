import type Database from 'better-sqlite3'
import {
  LAST_ADMIN,
  newGeneration,
  publicAccount,
  usernameKey,
  type Account,
  type AccountChange,
  type AccountGeneration,
  type AccountStore,
  type Role,
  type StoredAccount
} from '../account-store.js'
import { accountStatements } from '../account-sql.js'

/** The account statements on SQLite (placeholders `?`), from the one description in account-sql.ts. */
const SQL = accountStatements('sqlite')

/**
 * The SQLite {@link AccountStore}, on the store's main connection (accounts change rarely, so
 * they do not go through the books' group commit). Each write is one `BEGIN IMMEDIATE`
 * transaction, which SQLite serialises against every other writer (the writer thread, and a
 * `book-service user` command working on the same file), with `synchronous=FULL`: committed
 * means on disk.
 */
export class SqliteAccountStore implements AccountStore {
  private readonly statements

  constructor(private readonly db: Database.Database) {
    this.statements = {
      list: db.prepare<[], Account>(SQL.list),
      find: db.prepare<[string], StoredAccount>(SQL.find),
      generation: db.prepare<[string], AccountGeneration>(SQL.generation),
      admins: db.prepare<[], { admins: number }>(SQL.admins),
      insert: db.prepare(SQL.insert),
      update: db.prepare<[string | null, Role | null, string, string, string], Account>(SQL.update),
      delete: db.prepare(SQL.delete)
    }
  }

  async list(): Promise<Account[]> {
    return this.statements.list.all()
  }

  async find(username: string): Promise<StoredAccount | undefined> {
    return this.statements.find.get(usernameKey(username))
  }

  async generation(username: string): Promise<AccountGeneration | undefined> {
    return this.statements.generation.get(usernameKey(username))
  }

  async create(account: { username: string; passwordHash: string; role: Role }): Promise<Account | 'exists'> {
    const now = new Date().toISOString()
    const { changes } = this.statements.insert.run(
      usernameKey(account.username), account.username, account.passwordHash, account.role, newGeneration(), now, now
    )
    return changes === 0 ? 'exists' : { username: account.username, role: account.role, created_at: now, updated_at: now }
  }

  async createFirstAdmin(username: string, passwordHash: () => Promise<string>): Promise<boolean> {
    if (this.statements.admins.get()!.admins > 0) return false
    const hash = await passwordHash()
    return this.db.transaction(() => {
      if (this.statements.admins.get()!.admins > 0) return false
      const now = new Date().toISOString()
      return this.statements.insert.run(usernameKey(username), username, hash, 'admin', newGeneration(), now, now).changes > 0
    }).immediate()
  }

  async update(username: string, change: AccountChange): Promise<Account | 'missing' | typeof LAST_ADMIN> {
    const key = usernameKey(username)
    return this.db.transaction((): Account | 'missing' | typeof LAST_ADMIN => {
      const current = this.statements.find.get(key)
      if (current === undefined) return 'missing'
      if (change.passwordHash === undefined && change.role === undefined) return publicAccount(current)
      if (this.demotesLastAdmin(current, change.role ?? current.role)) return LAST_ADMIN
      const now = new Date().toISOString()
      return this.statements.update.get(change.passwordHash ?? null, change.role ?? null, newGeneration(), now, key)!
    }).immediate()
  }

  async delete(username: string): Promise<'deleted' | 'missing' | typeof LAST_ADMIN> {
    const key = usernameKey(username)
    return this.db.transaction((): 'deleted' | 'missing' | typeof LAST_ADMIN => {
      const current = this.statements.find.get(key)
      if (current === undefined) return 'missing'
      if (this.demotesLastAdmin(current, undefined)) return LAST_ADMIN
      this.statements.delete.run(key)
      return 'deleted'
    }).immediate()
  }

  /** True when `account` is the only admin and would stop being one (`role` undefined: deleted). */
  private demotesLastAdmin(account: Account, role: Role | undefined): boolean {
    return account.role === 'admin' && role !== 'admin' && this.statements.admins.get()!.admins <= 1
  }
}

