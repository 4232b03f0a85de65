import { after, before, describe, test } from 'node:test'
import type { FastifyInstance } from 'fastify'
import type { AppConfig } from '../../src/app.js'
import type { Engine } from '../../src/storage/migrations.js'
import { buildTestApp } from './app.js'
import { engines, openTestStore } from './engines.js'

/** What a suite run by {@link describeEachEngine} gets. */
export interface EngineSuite {
  engine: Engine
  /** The suite's app (built before the first test, shared by the suite's tests). */
  app(): FastifyInstance
  /** Runs `body` with an app of its own on an empty store of this engine, then closes both. */
  withFreshApp<T>(body: (app: FastifyInstance) => Promise<T>, overrides?: Partial<AppConfig>): Promise<T>
}

/**
 * Declares the suite `body` once per storage engine (SQLite, PostgreSQL), so every HTTP test runs
 * against both with the same code. PostgreSQL suites are skipped, with the reason shown, when no
 * server is reachable: as one skipped test standing for the suite, because the test runner counts
 * no skipped `describe` in its `skipped` total (on any Node line), which would hide it (issue 13).
 */
export function describeEachEngine(name: string, body: (suite: EngineSuite) => void, overrides: Partial<AppConfig> = {}) {
  for (const { engine, skip } of engines) {
    describe(`${name} [${engine}]`, () => {
      if (skip) {
        test('every test of this suite', { skip }, () => {})
        return
      }
      let app: FastifyInstance | undefined
      let cleanup = async () => {}
      before(async () => {
        const opened = await openTestStore(engine)
        cleanup = opened.cleanup
        app = await buildTestApp(overrides, opened.store)
      })
      after(async () => {
        await app?.close()
        await cleanup()
      })
      body({
        engine,
        app: () => app!,
        withFreshApp: async (run, freshOverrides = {}) => {
          const opened = await openTestStore(engine)
          const fresh = await buildTestApp({ ...overrides, ...freshOverrides }, opened.store)
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
