import { setPriority } from 'node:os'

/**
 * Lowers the scheduling priority of the calling thread to `nice` (0 to 19; higher yields more),
 * so that when the machine has no CPU to spare the threads that answer requests and commit writes
 * run first, while the caller still takes whatever CPU is idle. At nice 10 a thread gets about a
 * tenth of what a thread at 0 gets when both want all of it (the kernel's weights: 110 against 1,024).
 *
 * Only on Linux, where each thread has its own nice value and `setPriority` without a pid sets the
 * calling thread's; elsewhere (macOS) it would lower the whole process, requests included, so it
 * does nothing there. Used by the worker threads of background and heavy work: the webhook sender
 * (webhooks/sender-thread.ts) and the SQLite search reader (storage/sqlite/sqlite-reader-thread.ts).
 *
 * @returns whether the priority was lowered: false elsewhere than Linux, or where the system
 *   refuses it (some sandboxes), in which case the thread shares the CPU evenly with requests.
 */
export function lowerThreadPriority(nice: number): boolean {
  if (process.platform !== 'linux') return false
  try {
    setPriority(nice)
    return true
  } catch {
    return false
  }
}
