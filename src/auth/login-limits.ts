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
 * - Per account: only failures count, from every address together, and a check in progress
 *   counts as one until it is settled ({@link LoginLimits.reserveCheck}). Once an account has
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
   * Reserves one password check of the account (its username key) from `address`, before the
   * password is hashed: one attempt is added, atomically in the database, to the account's
   * failures and to this address's failures on it, and the check is refused when, before that
   * attempt, the account already had `failuresPerAccount` failures in its minute and this address
   * at least one (a check in progress counts as a failure until it is settled). The account's
   * counter orders every attempt of every process and instance, so of a burst sent all at once
   * at most `failuresPerAccount` checks, plus the first of each address, are let through
   * (docs/accounts.md "Login limits"). A refused attempt is taken back at once.
   *
   * @returns `{ retryAfterSeconds }` (until the account's minute ends) when refused; otherwise a
   *   {@link PasswordCheck} to settle once the password is compared.
   * @throws StorageUnavailableError when the database cannot be reached.
   */
  async reserveCheck(account: string, address: string): Promise<{ retryAfterSeconds: number } | PasswordCheck> {
    const now = this.now()
    const keys = [accountKey(account), failureKey(account, address)]
    const [failures, fromAddress] = await this.attempts.add(keys, now, LOGIN_WINDOW_MS)
    const counted = [
      { key: keys[0]!, windowStart: failures!.windowStart },
      { key: keys[1]!, windowStart: fromAddress!.windowStart }
    ]
    // The counts before this attempt: this one is the last added to both.
    if (failures!.attempts - 1 >= this.settings.failuresPerAccount && fromAddress!.attempts - 1 > 0) {
      await this.attempts.release(counted)
      return { retryAfterSeconds: Math.max(1, Math.ceil((failures!.windowStart + LOGIN_WINDOW_MS - now) / 1000)) }
    }
    return {
      settle: async (failed: boolean) => {
        if (failed) return
        // A right password is no failure: the reservation is taken back. Should the database not
        // answer now, it stays counted for the rest of the minute (a failure too many, never one too few).
        await this.attempts.release(counted).catch(() => {})
      }
    }
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

/**
 * A password check reserved by {@link LoginLimits.reserveCheck}: settle it once the password is
 * compared, `failed` true for a wrong one (the reservation stays counted as a failure) or false
 * for a right one, or when the check did not happen (it is taken back). A process that dies
 * before settling leaves it counted as a failure until the minute ends.
 */
export interface PasswordCheck {
  settle(failed: boolean): Promise<void>
}

/** What @fastify/rate-limit's store calls back with: the count in the window and the ms left. */
type RateLimitCallback = (error: Error | null, result: { current: number; ttl: number } | undefined) => void

/** The part of @fastify/rate-limit's store interface the login route uses. */
interface RateLimitStore {
  incr(key: string, callback: RateLimitCallback): void
  child(): RateLimitStore
}
