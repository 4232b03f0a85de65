import type pg from 'pg'
import type { Account } from '../../account/schema.js'
import { AccountRules, type AccountEngine } from '../sql/account-rules.js'
import { accountStatements, type AccountStatements } from '../sql/account-statements.js'
import type { AccountGeneration, AccountStore, StoredAccount } from '../contracts/account-store.js'
import { classified } from './postgres-errors.js'
import { inTransaction } from './postgres-transaction.js'

/** The account statements on PostgreSQL (placeholders `$n`), from the one description in sql/account-statements.ts. */
const SQL = accountStatements('postgres')

/** Advisory lock key held by every account write transaction ("accounts" in ASCII), so the last-admin check and the write are serialised across instances. */
const ACCOUNTS_LOCK = 0x6163636f756e7473n

/** One statement runner: a pool, or the client of a transaction. */
type Queryable = Pick<pg.Pool, 'query'>

/**
 * The accounts on a PostgreSQL pool (the books' pool, or one of their own for `book-service
 * user`). Each account transaction holds an advisory lock, so two instances (or a `book-service
 * user` command) demoting the last two admins at once cannot both succeed.
 */
class PostgresAccounts implements AccountEngine {
  readonly statements: AccountStatements

  constructor(
    private readonly pool: pg.Pool,
    private readonly queryTimeoutMs: number
  ) {
    this.statements = this.statementsOn(pool)
  }

  /** Runs `work` in one transaction holding {@link ACCOUNTS_LOCK}; commits, or rolls back on error. */
  async transaction<T>(work: (statements: AccountStatements) => Promise<T>): Promise<T> {
    return inTransaction(this.pool, this.queryTimeoutMs, async (query, client) => {
      await query('SELECT pg_advisory_xact_lock($1)', [ACCOUNTS_LOCK.toString()])
      return work(this.statementsOn(client))
    })
  }

  /** The account statements run on `on`. */
  private statementsOn(on: Queryable): AccountStatements {
    const rows = async <Row extends pg.QueryResultRow>(text: string, values: unknown[]) => (await this.run<Row>(on, text, values)).rows
    return {
      list: () => rows<Account>(SQL.list, []),
      find: async (key) => (await rows<StoredAccount>(SQL.find, [key]))[0],
      generation: async (key) => (await rows<AccountGeneration>(SQL.generation, [key]))[0],
      admins: async () => (await rows<{ admins: number }>(SQL.admins, []))[0]!.admins,
      insert: async (values) => (await this.run(on, SQL.insert, values)).rowCount! > 0,
      update: async (values) => (await rows<Account>(SQL.update, values))[0]!,
      delete: async (key) => {
        await this.run(on, SQL.delete, [key])
        await this.run(on, SQL.deleteApiTokens, [key])
      }
    }
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

/** The {@link AccountStore} on the PostgreSQL pool `pool`, each statement bounded by `queryTimeoutMs`. */
export function postgresAccountStore(pool: pg.Pool, queryTimeoutMs: number): AccountStore {
  return new AccountRules(new PostgresAccounts(pool, queryTimeoutMs))
}
