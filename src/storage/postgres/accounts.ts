import type pg from 'pg'
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
import { StorageUnavailableError } from '../book-store.js'
import { accountStatements } from '../account-sql.js'
import { classified } from './errors.js'

/** The account statements on PostgreSQL (placeholders `$n`), from the one description in account-sql.ts. */
const SQL = accountStatements('postgres')

/** Advisory lock key held by every account write transaction ("accounts" in ASCII), so the last-admin check and the write are serialised across instances. */
const ACCOUNTS_LOCK = 0x6163636f756e7473n

/**
 * The username key of `username` ({@link usernameKey}), or undefined when it holds a NUL
 * character: PostgreSQL text cannot hold one, so no stored account has such a name, and sending
 * it would fail the statement (a 500) instead of finding nothing (a 404, or an invalid token).
 */
function storedKey(username: string): string | undefined {
  const key = usernameKey(username)
  return key.includes('\0') ? undefined : key
}

/** One statement runner: a pool, or the client of a transaction. */
type Queryable = Pick<pg.Pool, 'query'>

/**
 * The PostgreSQL {@link AccountStore}, on the books' connection pool. Writes that must keep an
 * admin run in one transaction holding an advisory lock, so two instances (or a
 * `book-service user` command) demoting the last two admins at once cannot both succeed.
 */
export class PostgresAccountStore implements AccountStore {
  constructor(
    private readonly pool: pg.Pool,
    private readonly queryTimeoutMs: number
  ) {}

  async list(): Promise<Account[]> {
    return this.rows<Account>(this.pool, SQL.list, [])
  }

  async find(username: string): Promise<StoredAccount | undefined> {
    const key = storedKey(username)
    return key === undefined ? undefined : (await this.rows<StoredAccount>(this.pool, SQL.find, [key]))[0]
  }

  async generation(username: string): Promise<AccountGeneration | undefined> {
    const key = storedKey(username)
    return key === undefined ? undefined : (await this.rows<AccountGeneration>(this.pool, SQL.generation, [key]))[0]
  }

  async create(account: { username: string; passwordHash: string; role: Role }): Promise<Account | 'exists'> {
    const now = new Date().toISOString()
    const values = [usernameKey(account.username), account.username, account.passwordHash, account.role, newGeneration(), now, now]
    const result = await this.run(this.pool, SQL.insert, values)
    return result.rowCount === 0 ? 'exists' : { username: account.username, role: account.role, created_at: now, updated_at: now }
  }

  async createFirstAdmin(username: string, passwordHash: () => Promise<string>): Promise<boolean> {
    if ((await this.rows<{ admins: number }>(this.pool, SQL.admins, []))[0]!.admins > 0) return false
    const hash = await passwordHash()
    return this.transaction(async (client) => {
      if ((await this.rows<{ admins: number }>(client, SQL.admins, []))[0]!.admins > 0) return false
      const now = new Date().toISOString()
      return (await this.run(client, SQL.insert, [usernameKey(username), username, hash, 'admin', newGeneration(), now, now])).rowCount! > 0
    })
  }

  async update(username: string, change: AccountChange): Promise<Account | 'missing' | typeof LAST_ADMIN> {
    const key = storedKey(username)
    if (key === undefined) return 'missing'
    return this.transaction(async (client) => {
      const current = (await this.rows<StoredAccount>(client, SQL.find, [key]))[0]
      if (current === undefined) return 'missing'
      if (change.passwordHash === undefined && change.role === undefined) return publicAccount(current)
      if (await this.demotesLastAdmin(client, current, change.role ?? current.role)) return LAST_ADMIN
      const rows = await this.rows<Account>(client, SQL.update, [
        change.passwordHash ?? null, change.role ?? null, newGeneration(), new Date().toISOString(), key
      ])
      return rows[0]!
    })
  }

  async delete(username: string): Promise<'deleted' | 'missing' | typeof LAST_ADMIN> {
    const key = storedKey(username)
    if (key === undefined) return 'missing'
    return this.transaction(async (client) => {
      const current = (await this.rows<StoredAccount>(client, SQL.find, [key]))[0]
      if (current === undefined) return 'missing'
      if (await this.demotesLastAdmin(client, current, undefined)) return LAST_ADMIN
      await this.run(client, SQL.delete, [key])
      return 'deleted' as const
    })
  }

  /** True when `account` is the only admin and would stop being one (`role` undefined: deleted). */
  private async demotesLastAdmin(client: Queryable, account: Account, role: Role | undefined): Promise<boolean> {
    if (account.role !== 'admin' || role === 'admin') return false
    return (await this.rows<{ admins: number }>(client, SQL.admins, []))[0]!.admins <= 1
  }

  /** Runs `work` in one transaction holding {@link ACCOUNTS_LOCK}; commits, or rolls back on error. */
  private async transaction<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    let client: pg.PoolClient
    try {
      client = await this.pool.connect()
    } catch (error) {
      throw classified(error)
    }
    try {
      await this.run(client, 'BEGIN', [])
      await this.run(client, 'SELECT pg_advisory_xact_lock($1)', [ACCOUNTS_LOCK.toString()])
      const result = await work(client)
      await this.run(client, 'COMMIT', [])
      client.release()
      return result
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {})
      client.release(error instanceof StorageUnavailableError ? error : undefined)
      throw error
    }
  }

  private async rows<Row extends pg.QueryResultRow>(on: Queryable, text: string, values: unknown[]): Promise<Row[]> {
    return (await this.run<Row>(on, text, values)).rows
  }

  /** One statement, with the store's query timeout; an unreachable database becomes a 503. */
  private async run<Row extends pg.QueryResultRow>(on: Queryable, text: string, values: unknown[]): Promise<pg.QueryResult<Row>> {
    try {
      const query: pg.QueryConfig & { query_timeout: number } = { text, values, query_timeout: this.queryTimeoutMs }
      return await on.query<Row>(query)
    } catch (error) {
      throw classified(error)
    }
  }
}
