import { readFileSync } from 'node:fs'
import { availableParallelism } from 'node:os'
import { resolve } from 'node:path'
import { parseEnv } from 'node:util'
import { Ajv, type ValidateFunction } from 'ajv'
import Type, { type Static, type TSchema } from 'typebox'
import { Password, PASSWORD_LENGTH } from './account/schema.js'
import { engineOf } from './storage/contracts/engine.js'

/**
 * One configuration setting: how it is validated (a JSON Schema, with its default), what it
 * accepts in words (used in the start-up error line), and what it means (used in the README
 * table and `.env.example`). This table is the single source of truth for configuration.
 */
export interface Setting {
  schema: TSchema
  /** Human words for the accepted values, e.g. "an integer from 1 to 65535". */
  accepts: string
  /** What the setting does. */
  description: string
  /** True when the value must never be echoed (secrets, passwords). */
  secret?: boolean
}

/** One origin (`scheme://host[:port]`, no path) or `*`; a list is these separated by commas. */
const ORIGIN = String.raw`\s*(\*|https?://[^\s,/]+)\s*`
const CORS_ORIGINS_PATTERN = `^${ORIGIN}(,${ORIGIN})*$`

/** The package's version (package.json `version`), shown by `--version` and in the API document. */
export const packageVersion: string = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
).version

/** Longest token lifetime, in seconds (one year): the most `TOKEN_TTL` and `book-service token --ttl` accept. */
export const MAX_TOKEN_TTL_SECONDS = 31_536_000

/** One postgres:// URL (scheme in any case, no comma or space); a list is these separated by commas. */
const REPLICA_URL = String.raw`\s*[Pp][Oo][Ss][Tt][Gg][Rr][Ee][Ss]([Qq][Ll])?://[^\s,]+\s*`
const REPLICA_URLS_PATTERN = `^${REPLICA_URL}(,${REPLICA_URL})*$`

/** `WEBHOOK_RETRY_SCHEDULE`: whole seconds (up to 6 digits), comma-separated. */
const WEBHOOK_RETRY_SCHEDULE_PATTERN = String.raw`^\s*\d{1,6}\s*(,\s*\d{1,6}\s*)*$`

/** Most worker processes `WORKERS` accepts. */
export const MAX_WORKERS = 256

/** Every environment variable the service reads, with its validation and meaning. */
export const settings = {
  PORT: {
    schema: Type.Integer({ minimum: 0, maximum: 65535, default: 8080 }),
    accepts: 'an integer from 0 to 65535',
    description: 'TCP port to listen on (0 picks a free port).'
  },
  HOST: {
    schema: Type.String({ minLength: 1, default: '0.0.0.0' }),
    accepts: 'a host name or IP address',
    description: 'Address to listen on; 127.0.0.1 keeps the service local to the machine.'
  },
  SECRET_TOKEN: {
    schema: Type.Optional(Type.String({ minLength: 1 })),
    accepts: 'a non-empty string (32 bytes or more recommended)',
    description:
      'HMAC secret that signs and verifies tokens. Unset with SQLite: generated once and kept in the data folder (mode 0600).',
    secret: true
  },
  WORKERS: {
    schema: Type.Union([Type.Integer({ minimum: 1, maximum: MAX_WORKERS }), Type.Literal('auto')], { default: 1 }),
    accepts: `an integer from 1 to ${MAX_WORKERS}, or auto (one per core available)`,
    description:
      'How many processes serve HTTP on the one port (node:cluster): 1 serves from this process; more start a primary that prepares the storage, then that many workers, and replaces any that dies. See "Running several instances".'
  },
  DATABASE_URL: {
    schema: Type.String({ minLength: 1, default: './data/books.db' }),
    accepts: 'a SQLite file path or a postgres:// URL',
    description: 'Where books are stored: a SQLite file (folder created) or a PostgreSQL URL.'
  },
  DATABASE_DIRECT_URL: {
    // Any case, as storage/contracts/engine.ts reads the scheme (JSON Schema patterns take no flags).
    schema: Type.Optional(Type.String({ pattern: '^[Pp][Oo][Ss][Tt][Gg][Rr][Ee][Ss]([Qq][Ll])?://' })),
    accepts: 'a postgres:// URL',
    description:
      'PostgreSQL only: a direct connection (not through a transaction-mode pooler such as PgBouncer) for what needs a session: migrations, the change log\'s numbering and listener, and the command line. When set, DATABASE_URL is taken to be such a pooler. See docs/several-instances.md "Behind PgBouncer".'
  },
  DATABASE_REPLICA_URLS: {
    schema: Type.Optional(Type.String({ pattern: REPLICA_URLS_PATTERN })),
    accepts: 'a comma-separated list of postgres:// URLs',
    description:
      'PostgreSQL only: streaming replicas of the primary that serve book reads (point reads, lists, counts, search, history) once they have replayed far enough; writes, and the reads a write decides on, stay on the primary. See docs/several-instances.md "Read replicas".'
  },
  DATABASE_NAMED_STATEMENTS: {
    schema: Type.Optional(Type.Boolean()),
    accepts: 'true or false',
    description:
      'PostgreSQL only: prepare the service\'s statements once per connection under a name. Default: true, or false when DATABASE_DIRECT_URL is set (a pooler before PgBouncer 1.21 cannot carry named statements; 1.21 and later can with max_prepared_statements).'
  },
  DATABASE_POOL_SIZE: {
    schema: Type.Integer({ minimum: 1, maximum: 1000, default: 10 }),
    accepts: 'an integer from 1 to 1000',
    description: 'PostgreSQL only: most connections each instance opens.'
  },
  DATABASE_STARTUP_TIMEOUT: {
    schema: Type.Integer({ minimum: 0, maximum: 3600, default: 30 }),
    accepts: 'an integer number of seconds from 0 to 3600',
    description: 'PostgreSQL only: how long start-up retries an unreachable database (with backoff) before exiting 1.'
  },
  CHANGE_LOG_MAX_AGE: {
    schema: Type.Integer({ minimum: 1, maximum: 315_360_000, default: 31_622_400 }),
    accepts: 'an integer number of seconds from 1 to 315360000 (10 years)',
    description:
      'How long the change log (and so each book\'s history) keeps a change, in seconds (default 366 days); older rows are removed in the background, 1,000 at a time.'
  },
  CHANGE_LOG_MAX_ROWS: {
    schema: Type.Integer({ minimum: 0, maximum: 1_000_000_000, default: 0 }),
    accepts: 'an integer from 0 to 1000000000',
    description:
      'Most changes the change log keeps; the oldest beyond it are removed in the background, 1,000 at a time. 0 (the default): no limit by count, so CHANGE_LOG_MAX_AGE alone decides and a history always reaches back that far.'
  },
  HEAVY_READS: {
    schema: Type.Union([Type.Integer({ minimum: 1, maximum: 1000 }), Type.Literal('auto')], { default: 'auto' }),
    accepts: 'an integer from 1 to 1000, or auto (half the cores available, shared among the WORKERS processes, at least 1 each)',
    description:
      'How many heavy reads (GET /books with q, title or author or without limit, GET /book/{id}/history) each process runs at once; more wait their turn (HEAVY_READ_WAIT). Point reads and writes never wait for them, and auto leaves them at least half the cores. See docs/operations.md "Bounded reads".'
  },
  HEAVY_READ_WAIT: {
    schema: Type.Number({ minimum: 0, maximum: 60, default: 2 }),
    accepts: 'a number of seconds from 0 to 60 (fractions allowed)',
    description: 'How long a heavy read beyond HEAVY_READS waits for its turn, in seconds; then it answers 503 Service unavailable with Retry-After: 1.'
  },
  WEBHOOK_DELIVERY_MAX_AGE: {
    schema: Type.Integer({ minimum: 1, maximum: 315_360_000, default: 2_592_000 }),
    accepts: 'an integer number of seconds from 1 to 315360000 (10 years)',
    description:
      'How long the webhook delivery log keeps a finished delivery (succeeded or failed), in seconds after its last attempt (default 30 days); older entries are removed in the background, 1,000 at a time. See docs/webhooks.md.'
  },
  AUTH_ENABLED: {
    schema: Type.Boolean({ default: true }),
    accepts: 'true or false',
    description: 'Require a bearer token on the book routes. false disables their protection (logged as a warning); /users always needs an admin token.'
  },
  AUTH_USERNAME: {
    schema: Type.String({ minLength: 1, default: 'admin' }),
    accepts: 'a non-empty string',
    description: 'Username of the first admin account, created at start-up while no admin account exists; accounts are then managed with /users or book-service user.'
  },
  AUTH_PASSWORD: {
    // The rule of every account's password (account/schema.ts), so the first admin's is no weaker.
    schema: Type.Optional(Password),
    accepts: `${PASSWORD_LENGTH.min} to ${PASSWORD_LENGTH.max} characters, as every password`,
    description:
      'Password of that first admin account (stored as an scrypt hash when the account is created; change it later with PUT /users/{username} or book-service user passwd). Unset: generated once, kept in the data folder (mode 0600) and printed once.',
    secret: true
  },
  TOKEN_TTL: {
    schema: Type.Integer({ minimum: 1, maximum: MAX_TOKEN_TTL_SECONDS, default: 3600 }),
    accepts: `an integer number of seconds from 1 to ${MAX_TOKEN_TTL_SECONDS}`,
    description: 'Lifetime in seconds of tokens issued by POST /login.'
  },
  LOGIN_RATE_LIMIT: {
    schema: Type.Integer({ minimum: 1, maximum: 1_000_000, default: 10 }),
    accepts: 'an integer from 1 to 1000000',
    description:
      'POST /login attempts allowed per client IP per minute, counted in the database for the whole service (every worker and instance together); more get 429.'
  },
  LOGIN_ACCOUNT_FAILURE_LIMIT: {
    schema: Type.Integer({ minimum: 1, maximum: 1_000_000, default: 20 }),
    accepts: 'an integer from 1 to 1000000',
    description:
      'Failed POST /login attempts on one account per minute, from every address together, after which that account answers 429 for the rest of the minute to addresses that failed in it; an address without a failure in that minute is still heard (see "Login limits").'
  },
  TRUST_PROXY: {
    schema: Type.String({ pattern: '^(true|false|[0-9A-Fa-f:.,/ ]+)$', default: 'false' }),
    accepts: 'true, false, or a comma-separated list of proxy addresses or CIDR ranges',
    description:
      'Which proxies to trust for X-Forwarded-For: the client address (login rate limit, logs) is then the forwarded one. false: the connecting address.'
  },
  REQUEST_TIMEOUT: {
    schema: Type.Integer({ minimum: 1, maximum: 3600, default: 30 }),
    accepts: 'an integer number of seconds from 1 to 3600',
    description:
      'Most time a client may take to send a whole request (headers and body); slower ones get 408 and are disconnected.'
  },
  HEADERS_TIMEOUT: {
    schema: Type.Integer({ minimum: 1, maximum: 3600, default: 10 }),
    accepts: 'an integer number of seconds from 1 to 3600',
    description:
      'Most time a client may take to send the request headers (slowloris defence); at most REQUEST_TIMEOUT is used.'
  },
  KEEP_ALIVE_TIMEOUT: {
    schema: Type.Integer({ minimum: 1, maximum: 3600, default: 72 }),
    accepts: 'an integer number of seconds from 1 to 3600',
    description: 'How long an idle keep-alive connection is kept open before the service closes it.'
  },
  MAX_CONNECTIONS: {
    schema: Type.Integer({ minimum: 1, maximum: 1_000_000, default: 4096 }),
    accepts: 'an integer from 1 to 1000000',
    description: 'Most TCP connections open at once; further connections are closed at once (keep it under `ulimit -n`).'
  },
  MAX_CONNECTIONS_PER_ADDRESS: {
    schema: Type.Integer({ minimum: 1, maximum: 1_000_000, default: 256 }),
    accepts: 'an integer from 1 to 1000000',
    description:
      'Most TCP connections open at once from one client address; further ones from it are closed at once, so one client cannot hold the whole MAX_CONNECTIONS. Proxies trusted by TRUST_PROXY are not limited (every client arrives through them).'
  },
  SEND_TIMEOUT: {
    schema: Type.Integer({ minimum: 1, maximum: 3600, default: 30 }),
    accepts: 'an integer number of seconds from 1 to 3600',
    description:
      'Most time a connection may keep data waiting to be sent without the client taking any of it (a slow or stalled reader); such connections are dropped.'
  },
  FEED_MAX_SUBSCRIBERS: {
    schema: Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1024 }),
    accepts: 'an integer from 1 to 1000000, at most half of MAX_CONNECTIONS',
    description:
      'Most change feed streams (GET /books/changes) open at once in one process; further subscribers get 503 `Service unavailable`. Each stream holds a connection, so at most half of MAX_CONNECTIONS is accepted (the rest stays for ordinary requests); unset, it is a quarter of MAX_CONNECTIONS when that is less than 1024.'
  },
  FEED_MAX_STREAMS_PER_SUBJECT: {
    schema: Type.Integer({ minimum: 1, maximum: 1_000_000, default: 16 }),
    accepts: 'an integer from 1 to 1000000',
    description:
      'Most change feed streams open at once in one process for one token subject (its `sub` claim; a token without one counts on its own); further ones get 503 `Service unavailable`.'
  },
  FEED_MAX_STREAM_AGE: {
    schema: Type.Integer({ minimum: 1, maximum: 86_400, default: 3600 }),
    accepts: 'an integer number of seconds from 1 to 86400',
    description:
      'Seconds after which a change feed stream ends cleanly (its place freed); the client reconnects with Last-Event-ID and misses nothing.'
  },
  FEED_HEARTBEAT: {
    schema: Type.Integer({ minimum: 1, maximum: 3600, default: 15 }),
    accepts: 'an integer number of seconds from 1 to 3600',
    description: 'Seconds between two heartbeats (a comment line) on each change feed stream, so proxies and clients see it is alive.'
  },
  FEED_BUFFER_BYTES: {
    schema: Type.Integer({ minimum: 1024, maximum: 67_108_864, default: 262_144 }),
    accepts: 'an integer number of bytes from 1024 to 67108864',
    description:
      'Most bytes of change feed events that may wait unsent to one subscriber (beyond what the operating system buffers); a subscriber that falls further behind is dropped and resumes with Last-Event-ID when it reconnects.'
  },
  MAX_HEADER_SIZE: {
    schema: Type.Integer({ minimum: 1024, maximum: 1_048_576, default: 16_384 }),
    accepts: 'an integer number of bytes from 1024 to 1048576',
    description: 'Largest total size in bytes of a request line and headers; larger requests get 431.'
  },
  LOG_LEVEL: {
    schema: Type.Union(
      ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((level) => Type.Literal(level)),
      { default: 'info' }
    ),
    accepts: 'one of fatal, error, warn, info, debug, trace, silent',
    description: 'Minimum level of the JSON log lines written to standard output.'
  },
  METRICS_ENABLED: {
    schema: Type.Boolean({ default: true }),
    accepts: 'true or false',
    description:
      'Serve Prometheus metrics at GET /metrics (not behind auth: restrict it at the network). false answers 404.'
  },
  UI_ENABLED: {
    schema: Type.Boolean({ default: true }),
    accepts: 'true or false',
    description:
      'Serve the web page for managing the books at GET / (its assets under /assets/; not behind auth: the page signs in itself). false answers 404.'
  },
  CORS_ORIGINS: {
    schema: Type.Optional(Type.String({ pattern: CORS_ORIGINS_PATTERN })),
    accepts: 'a comma-separated list of origins such as https://app.example.com (or *)',
    description: 'Browser origins allowed to call the API cross-origin (CORS). Unset: CORS is off.'
  },
  WEBHOOK_RETRY_SCHEDULE: {
    schema: Type.String({ pattern: WEBHOOK_RETRY_SCHEDULE_PATTERN, default: '5,300,1800,7200,18000,36000,50400,72000,86400' }),
    accepts: 'a comma-separated list of whole seconds such as 5,300,1800 (each at most 604800)',
    description:
      'Webhooks: the delays before each retry of a failed delivery, in seconds (the first attempt is at once); once the list is run through, the endpoint is disabled. See docs/webhooks.md.'
  },
  WEBHOOK_TIMEOUT: {
    schema: Type.Integer({ minimum: 1, maximum: 300, default: 15 }),
    accepts: 'an integer number of seconds from 1 to 300',
    description: 'Webhooks: how long one delivery attempt may take (connecting, sending, the answer), in seconds; longer is a failure.'
  },
  WEBHOOK_ALLOW_PRIVATE: {
    schema: Type.Boolean({ default: false }),
    accepts: 'true or false',
    description:
      'Webhooks: true allows endpoints on special-purpose addresses (loopback, private, link-local, unique-local, multicast, unspecified, documentation, reserved…: every range IANA marks not globally reachable; a receiver on the same machine or network); false refuses them at creation and at each delivery.'
  }
} satisfies Record<string, Setting>

/** The names of all settings. */
export type SettingName = keyof typeof settings

/** The validated configuration, typed from the settings table. */
export type Config = {
  [K in SettingName]: Static<(typeof settings)[K]['schema']>
}

/** Raised when a setting has a value it does not accept; `message` is one line for the operator. */
export class ConfigError extends Error {
  override name = 'ConfigError'
}

const configSchema = Type.Object(
  Object.fromEntries(Object.entries(settings).map(([name, setting]) => [name, setting.schema])),
  { additionalProperties: false }
)

interface AjvError {
  instancePath: string
  keyword: string
  params: Record<string, unknown>
}

let settingsAjv: Ajv | undefined
let validateSettings: ValidateFunction | undefined

/**
 * The settings' validator, compiled on first use: strings coerced to integers and booleans,
 * defaults filled in, unknown variables removed, every error collected. An Ajv of its own that
 * compiles only the table above, so a start compiles no other schema (JSON Schema's meta-schema
 * would cost ~60 ms). The table is fixed and exercised setting by setting in test/config.test.ts,
 * so checking it against the meta-schema (`validateSchema`, ~20 ms more) is skipped.
 */
function settingsValidator(): ValidateFunction {
  settingsAjv ??= new Ajv({
    allErrors: true,
    removeAdditional: true,
    useDefaults: true,
    coerceTypes: true,
    allowUnionTypes: true,
    addUsedSchema: false,
    validateSchema: false
  })
  validateSettings ??= settingsAjv.compile(structuredClone(configSchema))
  return validateSettings
}

/** The variables of the `.env` file in the working directory; none when there is no such file. */
function dotenvVariables(): Record<string, string> {
  try {
    return parseEnv(readFileSync(resolve('.env'), 'utf8')) as Record<string, string>
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
    return {}
  }
}

/**
 * Reads and validates the configuration once, from `env` (default `process.env`) and, when
 * `dotenv` is set, a `.env` file in the working directory (process variables win over the file).
 *
 * @returns the typed configuration with defaults applied.
 * @throws {ConfigError} naming the first bad variable and what it accepts.
 */
export function loadConfig(env: Record<string, string | undefined> = process.env, dotenv = true): Config {
  // An empty value means "not set": `PORT= npm start` should fall back to the default.
  const present = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== ''))
  const given: Record<string, string | undefined> = { ...(dotenv ? dotenvVariables() : {}), ...present }
  // Validation coerces and fills in place: `given` keeps the text as written, for the message.
  const values: Record<string, unknown> = { ...given }
  const validate = settingsValidator()
  if (validate(values)) return withFeedRoom(withDirectUrl(values as Config), given.FEED_MAX_SUBSCRIBERS !== undefined)
  const first = (validate.errors as AjvError[])[0]!
  const name = (first.instancePath.replace(/^\//, '') || String(first.params.missingProperty ?? '')) as SettingName
  const setting: Setting | undefined = settings[name]
  if (!setting) throw new ConfigError(`Invalid configuration: ${settingsAjv!.errorsText(validate.errors, { dataVar: 'env' })}`)
  const shown = setting.secret ? '' : ` (got ${JSON.stringify(given[name] ?? '')})`
  throw new ConfigError(`Invalid configuration: ${name} must be ${setting.accepts}${shown}`)
}

/**
 * Refuses `DATABASE_DIRECT_URL` or `DATABASE_REPLICA_URLS` beside a SQLite `DATABASE_URL`: they name
 * PostgreSQL behind a pooler or with replicas (docs/several-instances.md "Behind PgBouncer", "Read
 * replicas"), so set alone they mean the configuration is not the one intended.
 *
 * @throws {ConfigError} when either is set and `DATABASE_URL` is not a postgres:// URL.
 */
function withDirectUrl(config: Config): Config {
  if (config.DATABASE_DIRECT_URL !== undefined && engineOf(config.DATABASE_URL) !== 'postgres') {
    throw new ConfigError('Invalid configuration: DATABASE_DIRECT_URL is for PostgreSQL behind a pooler; DATABASE_URL must then be a postgres:// URL too (got a SQLite file)')
  }
  if (config.DATABASE_REPLICA_URLS !== undefined && engineOf(config.DATABASE_URL) !== 'postgres') {
    throw new ConfigError('Invalid configuration: DATABASE_REPLICA_URLS are replicas of a PostgreSQL primary; DATABASE_URL must then be a postgres:// URL too (got a SQLite file)')
  }
  return config
}

/** The URLs of `DATABASE_REPLICA_URLS` (comma-separated, spaces allowed), none when unset. */
export function replicaUrls(value: string | undefined): string[] {
  return (value ?? '').split(',').map((entry) => entry.trim()).filter(Boolean)
}

/**
 * Keeps room for ordinary requests beside the change feed's streams (docs/change-feed.md "Change feed"): each
 * stream holds one of MAX_CONNECTIONS for as long as it lasts, so FEED_MAX_SUBSCRIBERS may take at
 * most half of them. Unset, it is lowered to a quarter of MAX_CONNECTIONS when that is less than
 * its default (none for a cap under 4: every subscriber then gets 503).
 *
 * @param explicit whether FEED_MAX_SUBSCRIBERS was set (by the environment or `.env`).
 * @throws {ConfigError} when a FEED_MAX_SUBSCRIBERS that was set is over half of MAX_CONNECTIONS.
 */
function withFeedRoom(config: Config, explicit: boolean): Config {
  const half = Math.floor(config.MAX_CONNECTIONS / 2)
  if (explicit && config.FEED_MAX_SUBSCRIBERS > half) {
    throw new ConfigError(
      `Invalid configuration: FEED_MAX_SUBSCRIBERS must be at most half of MAX_CONNECTIONS (${half}), so feed streams leave room for ordinary requests (got ${config.FEED_MAX_SUBSCRIBERS}; raise MAX_CONNECTIONS or lower FEED_MAX_SUBSCRIBERS)`
    )
  }
  if (!explicit) config.FEED_MAX_SUBSCRIBERS = Math.min(config.FEED_MAX_SUBSCRIBERS, Math.floor(config.MAX_CONNECTIONS / 4))
  return config
}

/**
 * How many worker processes `WORKERS` asks for: the integer itself, or for `auto` the cores this
 * process may use (`os.availableParallelism()`, at most {@link MAX_WORKERS}).
 */
export function workerCount(value: Config['WORKERS']): number {
  return value === 'auto' ? Math.min(availableParallelism(), MAX_WORKERS) : value
}

/**
 * How many heavy reads one process runs at once (`HEAVY_READS`, docs/operations.md "Bounded
 * reads"): the integer itself, or for `auto` half the cores this process may use
 * (`os.availableParallelism()`), shared among the {@link workerCount} processes, at least 1. Heavy
 * reads then keep at most about half the cores busy, and writes and point reads have the rest.
 */
export function heavyReadLimit(config: Pick<Config, 'HEAVY_READS' | 'WORKERS'>): number {
  if (config.HEAVY_READS !== 'auto') return config.HEAVY_READS
  return Math.max(1, Math.floor(availableParallelism() / 2 / workerCount(config.WORKERS)))
}

/**
 * Fastify's `trustProxy` option from `TRUST_PROXY`: `true` / `false`, or the list of trusted
 * proxy addresses and CIDR ranges.
 */
export function trustProxyOption(value: string): boolean | string[] {
  if (value === 'true' || value === 'false') return value === 'true'
  return value.split(',').map((entry) => entry.trim()).filter(Boolean)
}

/**
 * The retry delays of `WEBHOOK_RETRY_SCHEDULE`, in ms (each capped at 7 days), in order: the delay
 * before the second attempt, the third, … (docs/webhooks.md "Retries").
 */
export function retryDelaysMs(value: string): number[] {
  return value.split(',').map((entry) => Math.min(Number(entry.trim()), 604_800) * 1000)
}
