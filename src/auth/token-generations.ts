import { usernameKey } from '../account/schema.js'
import type { AccountStore } from '../storage/contracts/account-store.js'
import { RecentReads } from './recent-reads.js'

/** How long an account's generation is trusted without asking the database again, in milliseconds. */
export const GENERATION_CACHE_MS = 2000

/** Most accounts whose generation is kept. */
const MAX_ENTRIES = 10_000

/**
 * The revocation check of login tokens (docs/accounts.md "Accounts and roles"): a token issued by
 * `POST /login` carries its account's generation (claim `book_service_generation`), which the
 * account store replaces on every password or role change and removes with the account. A token
 * is current while that claim equals the stored one.
 *
 * Answers come from a cache ({@link RecentReads}) refreshed from the database at most every
 * {@link GENERATION_CACHE_MS} per account, so a change made on another instance (or by the
 * `book-service user` command) is seen within that time plus one query; a change made through
 * this instance is seen at once ({@link forget}). This runs on every request, after the
 * verified-token cache (src/auth/verified-tokens.ts), so a cached signature check never outlives a
 * revocation.
 */
export class TokenGenerations {
  /** Each account's stored generation by username key; null when the account does not exist. */
  private readonly generations: RecentReads<string | null>

  constructor(
    private readonly accounts: Pick<AccountStore, 'generation'>,
    now: () => number = Date.now
  ) {
    this.generations = new RecentReads(GENERATION_CACHE_MS, MAX_ENTRIES, now)
  }

  /**
   * True when `generation` is the current one of `username`'s account.
   *
   * @returns the answer at once when cached, otherwise a promise of it (one database query per
   *   account however many requests wait); the promise rejects when the storage fails.
   */
  isCurrent(username: string, generation: string): boolean | Promise<boolean> {
    const key = usernameKey(username)
    const cached = this.generations.fresh(key)
    if (cached !== undefined) return cached.value === generation
    return this.generations
      .read(key, async () => (await this.accounts.generation(username))?.generation ?? null)
      .then((current) => current === generation)
  }

  /** Drops what is cached for `username` (after this instance changed or removed its account). */
  forget(username: string): void {
    this.generations.forget(usernameKey(username))
  }
}
