/**
 * Values read from the database, each trusted for a short while: the revocation checks'
 * caches (token-generations.ts for login tokens, api-tokens.ts for API tokens). A value read at
 * time t answers until t + `maxAgeMs`, so a change made by another process or instance is seen
 * within that time plus one read; one read per key is in flight however many callers wait; the
 * oldest entry goes first past `maxEntries`.
 *
 * A read that {@link forget} (or {@link forgetWhere}) dropped while it was in flight may have seen
 * the value from before the change that made this process forget it: its callers get it, but it
 * is not kept.
 */
export class RecentReads<V> {
  private readonly entries = new Map<string, { value: V; until: number }>()
  private readonly pending = new Map<string, Promise<V>>()

  /**
   * @param maxAgeMs how long a value answers, in milliseconds.
   * @param maxEntries most values kept.
   * @param now the clock, in milliseconds (tests pass their own).
   */
  constructor(
    private readonly maxAgeMs: number,
    private readonly maxEntries: number,
    private readonly now: () => number = Date.now
  ) {}

  /** The value of `key` while it is fresh, as `{ value }`; undefined when it must be read. */
  fresh(key: string): { value: V } | undefined {
    const entry = this.entries.get(key)
    return entry !== undefined && this.now() < entry.until ? entry : undefined
  }

  /**
   * Reads `key` with `read` (or joins the read in flight) and keeps the answer.
   *
   * @returns the value; rejects with `read`'s error (nothing kept).
   */
  read(key: string, read: () => Promise<V>): Promise<V> {
    const inFlight = this.pending.get(key)
    if (inFlight !== undefined) return inFlight
    const started: Promise<V> = read().then(
      (value) => {
        if (this.pending.get(key) !== started) return value
        this.pending.delete(key)
        if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!)
        this.entries.delete(key)
        this.entries.set(key, { value, until: this.now() + this.maxAgeMs })
        return value
      },
      (error: unknown) => {
        if (this.pending.get(key) === started) this.pending.delete(key)
        throw error
      }
    )
    this.pending.set(key, started)
    return started
  }

  /** Drops what is kept or in flight for `key` (after this process changed it). */
  forget(key: string): void {
    this.entries.delete(key)
    this.pending.delete(key)
  }

  /** Drops every kept value `matches`, and every read in flight (their keys are not known yet). */
  forgetWhere(matches: (value: V) => boolean): void {
    for (const [key, entry] of this.entries) if (matches(entry.value)) this.entries.delete(key)
    this.pending.clear()
  }
}
