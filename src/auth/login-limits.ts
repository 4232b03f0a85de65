import { createHash } from 'node:crypto'
import type { AttemptCount, LoginAttempts } from '../storage/contracts/login-attempts.js'

/** The length of a login-limit window, in ms: the limits count per minute. */
export const LOGIN_WINDOW_MS = 60_000

/** Most addresses counted by one process while the database cannot count (then it starts over). */
const LOCAL_ADDRESSES = 10_000

/** The two limits, from `LOGIN_RATE_LIMIT` and `LOGIN_ACCOUNT_FAILURE_LIMIT`. */
export interface LoginLimitSettings {
  /** Attempts allowed per client address per window, whatever their outcome. */
  attemptsPerAddress: number
  /** Failed attempts on one account per window, from every address, before it is guarded. */
  failuresPerAccount: number
}

/** Longest username key kept as written in a counter key; a longer one (no account has one) is kept as its SHA-256. */
const LONGEST_KEPT_USERNAME = 128

/** A username key as a counter holds it: bounded, so a client cannot store a megabyte per guess. */
const bounded = (account: string) =>
  account.length <= LONGEST_KEPT_USERNAME ? account : `sha256:${createHash('sha256').update(account).digest('base64url')}`

/** The counter keys: what is counted, never ambiguous whatever an address or username holds. */
const addressKey = (address: string) => JSON.stringify(['address', address])
const accountKey = (account: string) => JSON.stringify(['account', bounded(account)])
const failureKey = (account: string, address: string) => JSON.stringify(['failure', bounded(account), address])

/**
 * The login limits of the whole service (docs/accounts.md "Login limits", docs/reliability.md), counted in
 * the database ({@link LoginAttempts}) so that N workers or N instances never give N times the
 * attempts. Each counter's minute starts at its first attempt, as @fastify/rate-limit's own
 * store counts.
 *
 * - Per address: every attempt counts; past `attemptsPerAddress` in its minute the address gets
 *   429 (@fastify/rate-limit, with {@link LoginLimits.rateLimitStore} as its store).
 * - Per account: only failures count, from every address together. Once an account has
 *   `failuresPerAccount` failures in its minute, an address that itself failed on that account
 *   in the last minute gets 429 on it, without its password being checked, until the account's
 *   minute ends; an address without such a failure is still heard. So guessing from many
 *   addresses gets one guess per address per minute once the account is guarded, and the owner,
 *   from an address that has not failed, still logs in: an attacker cannot lock the owner out,
 *   and at worst an owner who mistyped during an attack waits out the minute.
 *
 * Unknown usernames are counted like accounts, so a 429 never tells whether an account exists.
 */
export class LoginLimits {
  /** Addresses known to be past their limit, with their count and window start: answered without a write. */
  private readonly exhausted = new Map<string, { attempts: number; windowStart: number }>()
  private lastForget = 0
  /** This process's own counts, used only while the database cannot count. */
  private readonly local = new Map<string, AttemptCount>()

  constructor(
    private readonly attempts: LoginAttempts,
    private readonly settings: LoginLimitSettings,
    private readonly now: () => number = Date.now
  ) {}

  /**
   * Counts one attempt from `address` and returns how many it made in its minute (this one
   * included) and the ms left in that minute. Once an address is past its limit, this process
   * answers for it until its minute ends without writing: the count only grows within a minute,
   * so it stays past the limit (the number reported is then this process's own). Forgets the
   * addresses whose minute ended at most once a minute (the database's ended counters are
   * removed by storage/retention.ts `trimLoginCounters`). While the database cannot count, this process counts alone.
   */
  async countAttempt(address: string): Promise<{ attempts: number; remainingMs: number }> {
    const now = this.now()
    const known = this.exhausted.get(address)
    if (known !== undefined && known.windowStart + LOGIN_WINDOW_MS > now) {
      known.attempts++
      return { attempts: known.attempts, remainingMs: known.windowStart + LOGIN_WINDOW_MS - now }
    }
    this.exhausted.delete(address)
    let count: AttemptCount
    try {
      count = (await this.attempts.add([addressKey(address)], now, LOGIN_WINDOW_MS))[0]!
      if (now - this.lastForget >= LOGIN_WINDOW_MS) {
        this.lastForget = now
        for (const [other, { windowStart }] of this.exhausted) if (windowStart + LOGIN_WINDOW_MS <= now) this.exhausted.delete(other)
      }
    } catch {
      // The database cannot count (the login itself will then answer 503): this process counts
      // alone meanwhile, so guessing is still limited while the accounts come back.
      count = this.countLocally(address, now)
    }
    if (count.attempts > this.settings.attemptsPerAddress) this.exhausted.set(address, { ...count })
    return { attempts: count.attempts, remainingMs: count.windowStart + LOGIN_WINDOW_MS - now }
  }

  /** One more attempt from `address` in this process's own count (while the database cannot count). */
  private countLocally(address: string, now: number): AttemptCount {
    const local = this.local.get(address)
    if (local === undefined || local.windowStart + LOGIN_WINDOW_MS <= now) {
      if (this.local.size >= LOCAL_ADDRESSES) this.local.clear()
      const fresh = { attempts: 1, windowStart: now }
      this.local.set(address, fresh)
      return { ...fresh }
    }
    local.attempts++
    return { ...local }
  }

  /**
   * Whether the account (its username key) is guarded against `address` now.
   *
   * @returns the seconds until the account's minute ends (for `Retry-After`) when it is, else undefined.
   * @throws StorageUnavailableError when the database cannot be reached.
   */
  async accountRefuses(account: string, address: string): Promise<number | undefined> {
    const now = this.now()
    const [failures, fromAddress] = await this.attempts.counts([accountKey(account), failureKey(account, address)], now, LOGIN_WINDOW_MS)
    if (failures!.attempts < this.settings.failuresPerAccount || fromAddress!.attempts === 0) return undefined
    return Math.max(1, Math.ceil((failures!.windowStart + LOGIN_WINDOW_MS - now) / 1000))
  }

  /**
   * Counts a failed attempt on the account (its username key) from `address`.
   *
   * @throws StorageUnavailableError when the database cannot be reached.
   */
  async recordFailure(account: string, address: string): Promise<void> {
    await this.attempts.add([accountKey(account), failureKey(account, address)], this.now(), LOGIN_WINDOW_MS)
  }

  /**
   * A store for @fastify/rate-limit (its `store` option: a class it instantiates) that counts
   * with {@link LoginLimits.countAttempt}, so the plugin's limit, headers and 429 hold for the
   * whole service.
   */
  rateLimitStore(): new () => RateLimitStore {
    const count = (address: string) => this.countAttempt(address)
    return class DatabaseAttemptStore implements RateLimitStore {
      incr(key: string, callback: RateLimitCallback): void {
        count(key).then(
          ({ attempts, remainingMs }) => callback(null, { current: attempts, ttl: remainingMs }),
          (error: Error) => callback(error, undefined)
        )
      }

      child(): RateLimitStore {
        return this
      }
    }
  }
}

/** What @fastify/rate-limit's store calls back with: the count in the window and the ms left. */
type RateLimitCallback = (error: Error | null, result: { current: number; ttl: number } | undefined) => void

/** The part of @fastify/rate-limit's store interface the login route uses. */
interface RateLimitStore {
  incr(key: string, callback: RateLimitCallback): void
  child(): RateLimitStore
}
