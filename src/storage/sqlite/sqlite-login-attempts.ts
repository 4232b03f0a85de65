import type Database from 'better-sqlite3'
import type { AttemptCount, LoginAttempts } from '../contracts/login-attempts.js'
import { attemptCount, loginAttemptSql } from '../sql/login-attempt-statements.js'

const SQL = loginAttemptSql('sqlite')

type Row = { attempts: number; window_start: number }

/**
 * The {@link LoginAttempts} on SQLite, on a connection of their own (`db`). The store opens it
 * with `synchronous=NORMAL`: a counter need not survive a power cut, so an attempt costs no
 * fsync on the request's thread; the writer thread's next `synchronous=FULL` commit syncs the
 * WAL with it anyway. The adds are one short write transaction (BEGIN IMMEDIATE): the busy
 * timeout waits for another process's writer on the same file.
 */
export class SqliteLoginAttempts implements LoginAttempts {
  private readonly addOne
  private readonly countOne
  private readonly forget
  private readonly addMany
  private readonly releaseMany

  constructor(db: Database.Database) {
    this.addOne = db.prepare<[string, number, number, number], Row>(SQL.add)
    this.countOne = db.prepare<[string, number], Row>(SQL.count)
    this.forget = db.prepare<[number]>(SQL.forget)
    this.addMany = db.transaction((keys: readonly string[], now: number, cutoff: number) =>
      keys.map((key) => attemptCount(this.addOne.get(key, now, cutoff, cutoff)))
    )
    const releaseOne = db.prepare<[string, number]>(SQL.release)
    this.releaseMany = db.transaction((counted: readonly { key: string; windowStart: number }[]) => {
      for (const { key, windowStart } of counted) releaseOne.run(key, windowStart)
    })
  }

  async add(keys: readonly string[], now: number, windowMs: number): Promise<AttemptCount[]> {
    // On a later turn of the event loop: an account transaction on the store's connection
    // (sqlite/sqlite-account-store.ts) holds the write lock across its awaits, which all settle within one
    // turn. Begun inside one, this transaction would wait for a lock that cannot be released
    // while this thread waits (or, in memory, share its connection).
    await new Promise((resolve) => setImmediate(resolve))
    return this.addMany.immediate(keys, now, now - windowMs)
  }

  async release(counted: readonly { key: string; windowStart: number }[]): Promise<void> {
    // On a later turn, for the reason `add` gives.
    await new Promise((resolve) => setImmediate(resolve))
    this.releaseMany.immediate(counted)
  }

  async counts(keys: readonly string[], now: number, windowMs: number): Promise<AttemptCount[]> {
    return keys.map((key) => attemptCount(this.countOne.get(key, now - windowMs)))
  }

  async forgetBefore(cutoff: number): Promise<void> {
    this.forget.run(cutoff)
  }
}
