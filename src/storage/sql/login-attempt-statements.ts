import type { AttemptCount } from '../contracts/login-attempts.js'
import type { Engine } from '../contracts/engine.js'
import { placeholders } from './book-statements.js'

/** The statements of `login_attempts` as one engine's login counters (`sqlite-login-attempts.ts`, `postgres-login-attempts.ts`) run them. */
export interface LoginAttemptSql {
  /** key, now, cutoff, cutoff (cutoff = now − window): one more attempt, returns `attempts` and `window_start`. */
  add: string
  /** key, cutoff: `attempts` and `window_start` of a window still running (no row otherwise). */
  count: string
  /** cutoff: deletes the counters of ended windows. */
  forget: string
  /** key, window start: one attempt less in that window, if it is still the counter's. */
  release: string
}

/** The statements of `login_attempts` for `engine`: the same SQL but for the placeholders. */
export function loginAttemptSql(engine: Engine): LoginAttemptSql {
  const [key, now, cutoff, cutoffAgain] = placeholders(engine, 4)
  const [countKey, countCutoff] = placeholders(engine, 2)
  return {
    add:
      `INSERT INTO login_attempts (key, window_start, attempts) VALUES (${key}, ${now}, 1) ON CONFLICT (key) DO UPDATE SET ` +
      `attempts = CASE WHEN login_attempts.window_start > ${cutoff} THEN login_attempts.attempts + 1 ELSE 1 END, ` +
      `window_start = CASE WHEN login_attempts.window_start > ${cutoffAgain} THEN login_attempts.window_start ELSE excluded.window_start END ` +
      'RETURNING attempts, window_start',
    count: `SELECT attempts, window_start FROM login_attempts WHERE key = ${countKey} AND window_start > ${countCutoff}`,
    forget: `DELETE FROM login_attempts WHERE window_start <= ${placeholders(engine, 1)[0]}`,
    release: `UPDATE login_attempts SET attempts = attempts - 1 WHERE key = ${countKey} AND window_start = ${countCutoff} AND attempts > 0`
  }
}

/** A row of `add` or `count` as an {@link AttemptCount} (PostgreSQL gives a bigint as text). */
export function attemptCount(row: { attempts: number; window_start: number | string } | undefined): AttemptCount {
  return row === undefined ? { attempts: 0, windowStart: 0 } : { attempts: Number(row.attempts), windowStart: Number(row.window_start) }
}
