import type Database from 'better-sqlite3'
import type { Account } from '../../account/schema.js'
import { AccountRules, type AccountEngine } from '../sql/account-rules.js'
import { accountStatements, type AccountInsertValues, type AccountStatements, type AccountUpdateValues } from '../sql/account-statements.js'
import type { AccountGeneration, AccountStore, StoredAccount } from '../contracts/account-store.js'

/** The account statements on SQLite (placeholders `?`), from the one description in sql/account-statements.ts. */
const SQL = accountStatements('sqlite')

/**
 * The accounts on a SQLite connection: the store's main one (accounts change rarely, so they do
 * not go through the books' group commit), or one of their own (`book-service user`).
 *
 * Each account transaction is one `BEGIN IMMEDIATE` transaction, which SQLite serialises against
 * every other writer (the writer thread, and another process working on the same file), with
 * `synchronous=FULL`: committed means on disk. On this connection they run one at a time, and a
 * create's insert waits for the one in progress, so no statement of another request ever lands
 * inside it (its statements answer at once, but each `await` lets other requests' code run).
 */
class SqliteAccounts implements AccountEngine {
  readonly statements: AccountStatements
  private readonly inTransaction: AccountStatements
  /** Settles when the account transaction (or insert) in progress on this connection is over. */
  private idle: Promise<unknown> = Promise.resolve()

  constructor(private readonly db: Database.Database) {
    const list = db.prepare<[], Account>(SQL.list)
    const find = db.prepare<[string], StoredAccount>(SQL.find)
    const generation = db.prepare<[string], AccountGeneration>(SQL.generation)
    const admins = db.prepare<[], { admins: number }>(SQL.admins)
    const insert = db.prepare<AccountInsertValues>(SQL.insert)
    const update = db.prepare<AccountUpdateValues, Account>(SQL.update)
    const remove = db.prepare<[string]>(SQL.delete)
    const removeApiTokens = db.prepare<[string]>(SQL.deleteApiTokens)
    this.inTransaction = {
      list: async () => list.all(),
      find: async (key) => find.get(key),
      generation: async (key) => generation.get(key),
      admins: async () => admins.get()!.admins,
      insert: async (values) => insert.run(...values).changes > 0,
      update: async (values) => update.get(...values)!,
      delete: async (key) => {
        remove.run(key)
        removeApiTokens.run(key)
      }
    }
    this.statements = { ...this.inTransaction, insert: (values) => this.oneAtATime(() => this.inTransaction.insert(values)) }
  }

  transaction<T>(work: (statements: AccountStatements) => Promise<T>): Promise<T> {
    return this.oneAtATime(async () => {
      this.db.exec('BEGIN IMMEDIATE')
      try {
        const result = await work(this.inTransaction)
        this.db.exec('COMMIT')
        return result
      } catch (error) {
        if (this.db.inTransaction) this.db.exec('ROLLBACK')
        throw error
      }
    })
  }

  /** Runs `work` once the account write in progress on this connection (if any) is over. */
  private oneAtATime<T>(work: () => Promise<T>): Promise<T> {
    const result = this.idle.then(work, work)
    this.idle = result.catch(() => {})
    return result
  }
}

/** The {@link AccountStore} on the SQLite connection `db` (its schema up to date). */
export function sqliteAccountStore(db: Database.Database): AccountStore {
  return new AccountRules(new SqliteAccounts(db))
}
