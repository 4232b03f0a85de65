import type pg from 'pg'
import type { AttemptCount, LoginAttempts } from '../contracts/login-attempts.js'
import { attemptCount, loginAttemptSql } from '../sql/login-attempt-statements.js'
import { classified } from './postgres-errors.js'

const SQL = loginAttemptSql('postgres')

type Row = { attempts: number; window_start: string }

/**
 * The {@link LoginAttempts} on PostgreSQL: each count one upsert on the books' pool (its row
 * lock makes concurrent adds from any instance count one each), bounded by the store's query
 * timeout; an unreachable database is a StorageUnavailableError (503).
 */
export class PostgresLoginAttempts implements LoginAttempts {
  constructor(
    private readonly pool: pg.Pool,
    private readonly queryTimeoutMs: number
  ) {}

  async add(keys: readonly string[], now: number, windowMs: number): Promise<AttemptCount[]> {
    const cutoff = now - windowMs
    return Promise.all(keys.map(async (key) => attemptCount((await this.run<Row>(SQL.add, [key, now, cutoff, cutoff]))[0])))
  }

  async release(counted: readonly { key: string; windowStart: number }[]): Promise<void> {
    await Promise.all(counted.map(({ key, windowStart }) => this.run(SQL.release, [key, windowStart])))
  }

  async counts(keys: readonly string[], now: number, windowMs: number): Promise<AttemptCount[]> {
    return Promise.all(keys.map(async (key) => attemptCount((await this.run<Row>(SQL.count, [key, now - windowMs]))[0])))
  }

  async forgetBefore(cutoff: number): Promise<void> {
    await this.run(SQL.forget, [cutoff])
  }

  private async run<R extends pg.QueryResultRow>(text: string, values: unknown[]): Promise<R[]> {
    try {
      const query: pg.QueryConfig & { query_timeout: number } = { text, values, query_timeout: this.queryTimeoutMs }
      return (await this.pool.query<R>(query)).rows
    } catch (error) {
      throw classified(error)
    }
  }
}
