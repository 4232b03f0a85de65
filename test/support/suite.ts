import assert from 'node:assert/strict'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import type { FastifyInstance } from 'fastify'
import type { AppConfig, AppOptions } from '../../src/app.js'
import type { Engine } from '../../src/storage/contracts/engine.js'
import { buildTestApp } from './app.js'
import { createPostgresDatabase, engines, openTestDatabase, type TestDatabase, type TestDatabaseOptions } from './engines.js'
import { inProcessScopeSkipReason, processSkipReason } from './scope.js'
import { removeDirectory, startServer, temporaryDirectory, type RunningServer } from './server.js'

/** What a suite run by {@link describeEachEngine} gets. */
export interface EngineSuite {
  engine: Engine
  /** The suite's app (built before the first test, shared by the suite's tests). */
  app(): FastifyInstance
  /** Runs `body` with an app of its own on an empty database of this engine, then closes both. */
  withFreshApp<T>(body: (app: FastifyInstance) => Promise<T>, overrides?: Partial<AppConfig>, logger?: AppOptions['logger']): Promise<T>
}

/**
 * Declares the suite `body` once per storage engine (SQLite, PostgreSQL), so every HTTP test runs
 * against both with the same code. PostgreSQL suites are skipped, with the reason shown, when no
 * server is reachable: as one skipped test standing for the suite, because the test runner counts
 * no skipped `describe` in its `skipped` total (on any Node line), which would hide it.
 * `databaseOptions` are given to every database the suite opens.
 */
export function describeEachEngine(name: string, body: (suite: EngineSuite) => void, overrides: Partial<AppConfig> = {}, databaseOptions: TestDatabaseOptions = {}) {
  for (const { engine, skip: engineSkip } of engines) {
    const skip = inProcessScopeSkipReason ?? engineSkip
    describe(`${name} [${engine}]`, () => {
      if (skip) {
        test('every test of this suite', { skip }, () => {})
        return
      }
      let app: FastifyInstance | undefined
      let cleanup = async () => {}
      before(async () => {
        const opened = await openTestDatabase(engine, databaseOptions)
        cleanup = opened.cleanup
        app = await buildTestApp(overrides, opened.database)
      })
      after(async () => {
        await app?.close()
        await cleanup()
      })
      body({
        engine,
        app: () => app!,
        withFreshApp: async (run, freshOverrides = {}, logger) => {
          const opened = await openTestDatabase(engine, databaseOptions)
          const fresh = await buildTestApp({ ...overrides, ...freshOverrides }, opened.database, logger)
          try {
            return await run(fresh)
          } finally {
            await fresh.close()
            await opened.cleanup()
          }
        }
      })
    })
  }
}

/** How a suite's real process is started (see {@link suiteServer}). */
export interface ServerSuiteOptions {
  /** Environment added to the process's (the engine's `DATABASE_URL` is set already). */
  env?: Record<string, string>
  /**
   * Runs before the process starts, with its data folder and its `DATABASE_URL` (e.g. to import
   * books with the command line).
   */
  prepare?: (directory: string, databaseUrl: string) => Promise<void>
}

/**
 * For the suite being declared: starts the real process (`dist/start.js`) on `engine` before its
 * first test, in a data folder of its own (and, for PostgreSQL, a database of its own), and after
 * its last stops it (asserting exit code 0) and removes both.
 *
 * @returns the running process, once started.
 */
export function suiteServer(engine: Engine = 'sqlite', options: ServerSuiteOptions = {}): () => RunningServer {
  let directory = ''
  let database: TestDatabase | undefined
  let server: RunningServer | undefined
  before(async () => {
    directory = temporaryDirectory()
    database = engine === 'postgres' ? await createPostgresDatabase() : undefined
    const databaseUrl = database?.url ?? join(directory, 'books.db')
    await options.prepare?.(directory, databaseUrl)
    server = await startServer({ dataDirectory: directory, env: { DATABASE_URL: databaseUrl, ...options.env } })
  })
  after(async () => {
    if (server) assert.equal(await server.stop(), 0)
    await database?.drop()
    removeDirectory(directory)
  })
  return () => server!
}

/**
 * Declares the suite `body` once per storage engine against the real process ({@link
 * suiteServer}): the PostgreSQL one is one skipped test, with the reason, when no server answers;
 * both are when the run's scope leaves out real processes (`TEST_SCOPE=fast`, test/support/scope.ts).
 */
export function describeEachEngineServer(
  name: string,
  body: (suite: { engine: Engine; server(): RunningServer }) => void,
  options: ServerSuiteOptions = {}
) {
  for (const { engine, skip: engineSkip } of engines) {
    const skip = processSkipReason ?? engineSkip
    describe(`${name} (real process) [${engine}]`, () => {
      if (skip) {
        test('every test of this suite', { skip }, () => {})
        return
      }
      body({ engine, server: suiteServer(engine, options) })
    })
  }
}
