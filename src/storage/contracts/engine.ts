/** The storage engines: `sqlite` (embedded, the default) and `postgres`. */
export type Engine = 'sqlite' | 'postgres'

/**
 * The engine `DATABASE_URL` names: `postgres` for a `postgres://` or `postgresql://` URL (any
 * case), `sqlite` for anything else (a file path, or `:memory:`).
 */
export function engineOf(databaseUrl: string): Engine {
  return /^postgres(ql)?:\/\//i.test(databaseUrl) ? 'postgres' : 'sqlite'
}
