import { usernameKey } from '../account/schema.js'
import type { AccountStore } from '../storage/contracts/account-store.js'

/** How long an account's generation is trusted without asking the database again, in milliseconds. */
export const GENERATION_CACHE_MS = 2000

/** Most accounts whose generation is kept. */
const MAX_ENTRIES = 10_000

interface Entry {
  /** The stored generation, or null when the account does not exist. */
  generation: string | null
  until: number
}

/**
 * The revocation check (docs/accounts.md "Accounts and roles"): a token issued by `POST /login` carries its
 * account's generation (claim `book_service_generation`), which the account store replaces on
 * every password or role change and removes with the account. A token is current while that
 * claim equals the stored one.
 *
 * Answers come from a cache refreshed from the database at most every {@link GENERATION_CACHE_MS}
 * per account, so a change made on another instance (or by the `book-service user` command) is
 * seen within that time plus one query; a change made through this instance is seen at once
 * ({@link forget}). This runs on every request, after the verified-token cache
 * (src/auth/verified-tokens.ts), so a cached signature check never outlives a revocation.
 */
export class TokenGenerations {
  private readonly entries = new Map<string, Entry>()
  private readonly pending = new Map<string, Promise<string | null>>()

  constructor(
    private readonly accounts: Pick<AccountStore, 'generation'>,
    private readonly now: () => number = Date.now
  ) {}

  /**
   * True when `generation` is the current one of `username`'s account.
   *
   * @returns the answer at once when cached, otherwise a promise of it (one database query per
   *   account however many requests wait); the promise rejects when the storage fails.
   */
  isCurrent(username: string, generation: string): boolean | Promise<boolean> {
    const key = usernameKey(username)
    const entry = this.entries.get(key)
    if (entry !== undefined && this.now() < entry.until) return entry.generation === generation
    let lookup = this.pending.get(key)
    if (lookup === undefined) {
      const started: Promise<string | null> = this.accounts.generation(username).then(
        (stored) => {
          const current = stored?.generation ?? null
          // A lookup that {@link forget} dropped meanwhile may have read the old generation: not kept.
          if (this.pending.get(key) !== started) return current
          this.pending.delete(key)
          if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!)
          this.entries.set(key, { generation: current, until: this.now() + GENERATION_CACHE_MS })
          return current
        },
        (error: unknown) => {
          if (this.pending.get(key) === started) this.pending.delete(key)
          throw error
        }
      )
      lookup = started
      this.pending.set(key, lookup)
    }
    return lookup.then((current) => current === generation)
  }

  /** Drops what is cached for `username` (after this instance changed or removed its account). */
  forget(username: string): void {
    const key = usernameKey(username)
    this.entries.delete(key)
    this.pending.delete(key)
  }
}
