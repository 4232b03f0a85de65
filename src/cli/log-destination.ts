import { pino, type DestinationStream } from 'pino'

/**
 * The most one `write(2)` of the log carries: `PIPE_BUF` (4,096 bytes on Linux), so on a pipe
 * shared by several processes (`WORKERS` > 1) each write, always of whole lines, is never
 * interleaved with another process's (docs/several-instances.md "Logs").
 */
const WRITE_BYTES = 4096

/** Bytes the log destination gathers before it writes them (below {@link WRITE_BYTES}, as sonic-boom requires). */
const GATHER_BYTES = 3072

/** Longest a gathered log line waits before it is written, in milliseconds. */
const GATHER_MS = 200

/** The service's log destination: standard output, written asynchronously. */
export interface LogDestination {
  /** What pino writes each line to. */
  stream: DestinationStream
  /** Writes every line gathered so far, then closes the destination; resolves once it is closed. For the process's last moments. */
  end(): Promise<void>
}

/**
 * Standard output as the service's log destination, written asynchronously (pino's sonic-boom
 * with `sync: false`): a line is appended to a buffer and the buffer is written by libuv's thread
 * pool once it holds {@link GATHER_BYTES}, and every {@link GATHER_MS} (sonic-boom's
 * `periodicFlush`), so the request path never waits on a `write(2)` to a terminal or a pipe
 * (docs/operations.md "Logs").
 *
 * Lines are not lost on a normal stop ({@link LogDestination.end} before exiting), on
 * `process.exit` or on an uncaught exception (pino writes the buffer synchronously on the
 * process's `exit` event). A process killed by SIGKILL, the kernel's OOM killer or a native
 * crash loses the lines of at most its last {@link GATHER_MS} ms.
 */
export function openLogDestination(): LogDestination {
  const destination = pino.destination({
    dest: 1, sync: false, minLength: GATHER_BYTES, maxWrite: WRITE_BYTES, periodicFlush: GATHER_MS
  })
  const end = () =>
    new Promise<void>((resolve) => {
      destination.once('close', () => resolve())
      destination.once('error', () => resolve())
      destination.end()
    })
  return { stream: destination, end }
}
