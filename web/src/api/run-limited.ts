/**
 * Runs `task` on each item, at most `limit` at a time, in order of the items.
 *
 * @returns each task's outcome, in the items' order.
 */
export async function runLimited<T, R>(items: readonly T[], limit: number, task: (item: T) => Promise<R>): Promise<PromiseSettledResult<R>[]> {
  const outcomes: PromiseSettledResult<R>[] = new Array(items.length)
  let next = 0
  async function worker(): Promise<void> {
    while (next < items.length) {
      const index = next++
      try {
        outcomes[index] = { status: 'fulfilled', value: await task(items[index]!) }
      } catch (reason) {
        outcomes[index] = { status: 'rejected', reason }
      }
    }
  }
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker))
  return outcomes
}
