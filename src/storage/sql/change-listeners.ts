/**
 * The listeners of a store's `ChangeLog.onChanges` (src/storage/contracts/change-log.ts), for both
 * engines: the engine starts watching the database when the first listener comes and stops
 * when the last one goes.
 */
export class ChangeListeners {
  private readonly listeners = new Set<() => void>()

  /**
   * @param start begins watching the database (called when the first listener is added).
   * @param stop ends it (called when the last listener is removed).
   */
  constructor(
    private readonly start: () => void,
    private readonly stop: () => void
  ) {}

  /** Adds `listener`; returns the function that removes it. */
  add(listener: () => void): () => void {
    this.listeners.add(listener)
    if (this.listeners.size === 1) this.start()
    return () => {
      if (this.listeners.delete(listener) && this.listeners.size === 0) this.stop()
    }
  }

  /** Calls every listener (new changes may have been committed). */
  wake(): void {
    for (const listener of [...this.listeners]) listener()
  }
}
