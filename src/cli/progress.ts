/** `count` books in words: `1 book`, `0 books`, `26 books`. */
export function bookCount(count: number): string {
  return `${count} ${count === 1 ? 'book' : 'books'}`
}

/** How often the progress line is redrawn, in milliseconds. */
const REDRAW_MS = 250

/** A progress line on stderr: {@link Progress.add} counts, {@link Progress.done} ends the line. */
export interface Progress {
  /** Counts `count` more books. */
  add(count: number): void
  /** Draws the final count and ends the line (nothing when quiet). */
  done(): void
}

/**
 * A rate line for long runs: when stderr is a terminal,
 * `export: 120,000 books (48,000/s)` redrawn in place at most every 250 ms; otherwise (a pipe,
 * a file, cron) nothing at all, so logs stay clean.
 *
 * @param label what is counted, e.g. `export`.
 * @param stream where to draw (default stderr); quiet unless it is a TTY.
 */
export function progressLine(label: string, stream: NodeJS.WriteStream = process.stderr): Progress {
  if (!stream.isTTY) return { add: () => {}, done: () => {} }
  const started = Date.now()
  let total = 0
  let drawn = 0
  const draw = () => {
    const seconds = Math.max((Date.now() - started) / 1000, 0.001)
    stream.write(`\r\x1b[K${label}: ${total.toLocaleString('en-US')} books (${Math.round(total / seconds).toLocaleString('en-US')}/s)`)
    drawn = Date.now()
  }
  return {
    add(count) {
      total += count
      if (Date.now() - drawn >= REDRAW_MS) draw()
    },
    done() {
      draw()
      stream.write('\n')
    }
  }
}
