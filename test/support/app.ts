import { Writable } from 'node:stream'
import { after, before } from 'node:test'
import { createSigner } from 'fast-jwt'
import type { FastifyInstance } from 'fastify'
import { buildApp, type AppConfig, type AppOptions } from '../../src/app.js'
import { loadConfig } from '../../src/config.js'
import type { Database } from '../../src/storage/contracts/database.js'
import { SqliteDatabase } from '../../src/storage/sqlite/sqlite-database.js'

/** The signing secret of every test app and test server. */
export const TEST_SECRET = 'test-secret-0123456789-abcdefghijklmnopqrstuvwxyz'
/** The login password of every test app and test server (username `admin`). */
export const TEST_PASSWORD = 'correct horse battery staple'

/** The configuration of a test app: defaults, the test secret and password, logs silent. */
export function testConfig(overrides: Partial<AppConfig> = {}): AppConfig {
  return {
    ...loadConfig({ LOG_LEVEL: 'silent' }, false),
    SECRET_TOKEN: TEST_SECRET,
    AUTH_PASSWORD: TEST_PASSWORD,
    ...overrides
  }
}

/**
 * Builds the app in-process on `database` (default: a fresh in-memory SQLite database). Close it
 * with `app.close()`, which also closes the database.
 */
export async function buildTestApp(
  overrides: Partial<AppConfig> = {},
  database?: Database,
  logger?: AppOptions['logger']
): Promise<FastifyInstance> {
  return buildApp({ config: testConfig(overrides), database: database ?? (await SqliteDatabase.open(':memory:')), ...(logger ? { logger } : {}) })
}

/** A log captured as parsed lines: pass `logger` to {@link buildTestApp}, read `lines`. */
export function capturedLog(level = 'info'): { lines: Array<Record<string, unknown>>; logger: { level: string; stream: Writable } } {
  const lines: Array<Record<string, unknown>> = []
  const stream = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>)
      done()
    }
  })
  return { lines, logger: { level, stream } }
}

/**
 * For the suite being declared: builds a test app (with `overrides`) before its first test and
 * closes it after its last.
 *
 * @returns the app, once built.
 */
export function suiteApp(overrides: Partial<AppConfig> = {}): () => FastifyInstance {
  let app: FastifyInstance | undefined
  before(async () => {
    app = await buildTestApp(overrides)
  })
  after(() => app?.close())
  return () => app!
}

/**
 * Signs a token with the test secret (or `options.key`), as any other JWT tool would.
 *
 * @param payload the claims; `{}` by default (no claim is required).
 */
export function signToken(
  payload: Record<string, unknown> = {},
  options: { key?: string; algorithm?: 'HS256' | 'HS384' | 'HS512'; expiresIn?: number; notBefore?: number } = {}
): string {
  const { key = TEST_SECRET, algorithm = 'HS256', ...rest } = options
  return createSigner({ key, algorithm, noTimestamp: true, ...rest })(payload)
}

/** `Authorization` headers carrying a valid bearer token signed with the test secret. */
export function authHeaders(token = signToken()): Record<string, string> {
  return { authorization: `Bearer ${token}` }
}
