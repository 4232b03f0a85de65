/** The window in which worker deaths count towards a longer wait, in ms. */
const DEATH_WINDOW_MS = 60_000
/** The wait before the second replacement within {@link DEATH_WINDOW_MS}, in ms; it doubles after. */
const FIRST_DELAY_MS = 100
/** The longest wait before a replacement, in ms. */
const MAX_DELAY_MS = 30_000

/**
 * How long the cluster primary waits before it replaces a dead worker: at once for a death alone,
 * then 100 ms, 200 ms, 400 ms … up to 30 s for each further death within a minute, so a worker
 * that dies on every start (or on every request) is not respawned in a tight loop, while a
 * single crash is replaced without delay.
 */
export class ReplacementBackoff {
  private deaths: number[] = []

  constructor(private readonly now: () => number = Date.now) {}

  /** Records one death and returns the wait before its replacement, in ms. */
  next(): number {
    const now = this.now()
    this.deaths = this.deaths.filter((time) => now - time < DEATH_WINDOW_MS)
    this.deaths.push(now)
    const earlier = this.deaths.length - 1
    return earlier === 0 ? 0 : Math.min(FIRST_DELAY_MS * 2 ** (earlier - 1), MAX_DELAY_MS)
  }
}
