/** One counter: the attempts in its window and when that window started (ms since the epoch). */
export interface AttemptCount {
  attempts: number
  windowStart: number
}

/**
 * Counters of login attempts kept in the database (table `login_attempts`, migration
 * `0006_login_attempts`), so every worker and every instance on the database counts into the
 * same number: the login limits of auth/login-limits.ts hold for the service as a whole. A
 * counter belongs to a key (what is counted: an address, an account) and has a window that
 * starts at its first attempt and lasts `windowMs`; the first attempt after it starts a new one.
 */
export interface LoginAttempts {
  /**
   * Adds one to each of `keys` at time `now` (ms), atomically across processes (one upsert
   * each), and returns their counts after it, in the same order.
   */
  add(keys: readonly string[], now: number, windowMs: number): Promise<AttemptCount[]>
  /**
   * Takes back one attempt of each key, from the window it was added to (`windowStart`, as `add`
   * returned it); a key whose window has ended since (a new one started, or it was trimmed) is
   * left as it is, and no count goes below 0.
   */
  release(counted: readonly { key: string; windowStart: number }[]): Promise<void>
  /** The counts of `keys` at time `now` (ms): 0 attempts for a key never counted or whose window ended. */
  counts(keys: readonly string[], now: number, windowMs: number): Promise<AttemptCount[]>
  /** Drops the counters whose window started at or before `cutoff` (ms): they no longer count. */
  forgetBefore(cutoff: number): Promise<void>
}
