import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, test } from 'node:test'
import { availableParallelism } from 'node:os'
import { ConfigError, heavyReadLimit, loadConfig, replicaUrls, trustProxyOption, workerCount } from '../src/config.js'
import { SERVER_ENTRY, removeDirectory, temporaryDirectory } from './support/server.js'
import { processSkipReason } from './support/scope.js'

describe('configuration', () => {
  test('defaults when nothing is set', () => {
    const config = loadConfig({}, false)
    assert.equal(config.PORT, 8080)
    assert.equal(config.HOST, '0.0.0.0')
    assert.equal(config.DATABASE_URL, './data/books.db')
    assert.equal(config.AUTH_ENABLED, true)
    assert.equal(config.AUTH_USERNAME, 'admin')
    assert.equal(config.TOKEN_TTL, 3600)
    assert.equal(config.LOG_LEVEL, 'info')
    assert.equal(config.SECRET_TOKEN, undefined)
    assert.equal(config.AUTH_PASSWORD, undefined)
  })

  test('reads and converts values; an empty value means unset', () => {
    const config = loadConfig({ PORT: '9000', AUTH_ENABLED: 'false', TOKEN_TTL: '60', SECRET_TOKEN: 's', LOG_LEVEL: 'debug', HOST: '' }, false)
    assert.equal(config.PORT, 9000)
    assert.equal(config.AUTH_ENABLED, false)
    assert.equal(config.TOKEN_TTL, 60)
    assert.equal(config.SECRET_TOKEN, 's')
    assert.equal(config.LOG_LEVEL, 'debug')
    assert.equal(config.HOST, '0.0.0.0')
  })

  const bad: Array<[Record<string, string>, string]> = [
    [{ PORT: 'eighty' }, 'Invalid configuration: PORT must be an integer from 0 to 65535 (got "eighty")'],
    [{ PORT: '70000' }, 'Invalid configuration: PORT must be an integer from 0 to 65535 (got "70000")'],
    [{ AUTH_ENABLED: 'maybe' }, 'Invalid configuration: AUTH_ENABLED must be true or false (got "maybe")'],
    [{ TOKEN_TTL: '0' }, 'Invalid configuration: TOKEN_TTL must be an integer number of seconds from 1 to 31536000 (got "0")'],
    [{ TRUST_PROXY: 'yes please' }, 'Invalid configuration: TRUST_PROXY must be true, false, or a comma-separated list of proxy addresses or CIDR ranges (got "yes please")'],
    [{ LOG_LEVEL: 'loud' }, 'Invalid configuration: LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent (got "loud")'],
    ...['0', '257', '1.5', 'all', '-2'].map((value): [Record<string, string>, string] => [
      { WORKERS: value },
      `Invalid configuration: WORKERS must be an integer from 1 to 256, or auto (one per core available) (got "${value}")`
    ])
  ]
  for (const [env, message] of bad) {
    test(`rejects ${JSON.stringify(env)} with one clear line`, () => {
      assert.throws(() => loadConfig(env, false), (error: unknown) => error instanceof ConfigError && error.message === message)
    })
  }

  test('DATABASE_DIRECT_URL goes with a PostgreSQL DATABASE_URL (a pooler) and is refused beside a SQLite file', () => {
    const pooled = loadConfig({ DATABASE_URL: 'postgres://books@pgbouncer:6432/books', DATABASE_DIRECT_URL: 'postgres://books@db:5432/books' }, false)
    assert.equal(pooled.DATABASE_DIRECT_URL, 'postgres://books@db:5432/books')
    assert.equal(pooled.DATABASE_NAMED_STATEMENTS, undefined)
    // The scheme's case does not matter here, as it does not when the engine is chosen (storage/contracts/engine.ts).
    assert.equal(loadConfig({ DATABASE_URL: 'POSTGRES://books@pgbouncer:6432/books', DATABASE_DIRECT_URL: 'PostgreSQL://books@db:5432/books' }, false).DATABASE_URL, 'POSTGRES://books@pgbouncer:6432/books')
    assert.throws(
      () => loadConfig({ DATABASE_DIRECT_URL: 'postgres://books@db:5432/books' }, false),
      (error: unknown) =>
        error instanceof ConfigError &&
        error.message === 'Invalid configuration: DATABASE_DIRECT_URL is for PostgreSQL behind a pooler; DATABASE_URL must then be a postgres:// URL too (got a SQLite file)'
    )
    assert.throws(() => loadConfig({ DATABASE_URL: 'postgres://a@b/c', DATABASE_DIRECT_URL: './books.db' }, false), /DATABASE_DIRECT_URL must be a postgres:\/\/ URL/)
  })

  test('DATABASE_REPLICA_URLS: postgres:// URLs separated by commas, beside a PostgreSQL DATABASE_URL only', () => {
    const config = loadConfig({ DATABASE_URL: 'postgres://books@db:5432/books', DATABASE_REPLICA_URLS: 'postgres://books@r1:5432/books, POSTGRESQL://books@r2/books' }, false)
    assert.deepEqual(replicaUrls(config.DATABASE_REPLICA_URLS), ['postgres://books@r1:5432/books', 'POSTGRESQL://books@r2/books'])
    assert.deepEqual(replicaUrls(undefined), [])
    assert.throws(
      () => loadConfig({ DATABASE_REPLICA_URLS: 'postgres://books@r1/books' }, false),
      (error: Error) =>
        error instanceof ConfigError &&
        error.message === 'Invalid configuration: DATABASE_REPLICA_URLS are replicas of a PostgreSQL primary; DATABASE_URL must then be a postgres:// URL too (got a SQLite file)'
    )
    for (const bad of ['./replica.db', 'postgres://r1/books,', 'postgres://r1/books;postgres://r2/books x']) {
      assert.throws(() => loadConfig({ DATABASE_URL: 'postgres://a@b/c', DATABASE_REPLICA_URLS: bad }, false), /DATABASE_REPLICA_URLS must be a comma-separated list of postgres:\/\/ URLs/, bad)
    }
  })

  test('FEED_MAX_SUBSCRIBERS leaves room for ordinary requests: at most half of MAX_CONNECTIONS; unset, at most a quarter', () => {
    const defaults = loadConfig({}, false)
    assert.deepEqual([defaults.MAX_CONNECTIONS, defaults.FEED_MAX_SUBSCRIBERS, defaults.FEED_MAX_STREAMS_PER_SUBJECT, defaults.FEED_MAX_STREAM_AGE], [4096, 1024, 16, 3600])
    assert.equal(loadConfig({ MAX_CONNECTIONS: '100' }, false).FEED_MAX_SUBSCRIBERS, 25)
    assert.equal(loadConfig({ MAX_CONNECTIONS: '3' }, false).FEED_MAX_SUBSCRIBERS, 0)
    assert.equal(loadConfig({ MAX_CONNECTIONS: '100', FEED_MAX_SUBSCRIBERS: '50' }, false).FEED_MAX_SUBSCRIBERS, 50)
    assert.equal(loadConfig({ MAX_CONNECTIONS: '20000', FEED_MAX_SUBSCRIBERS: '10000' }, false).FEED_MAX_SUBSCRIBERS, 10_000)
    assert.throws(
      () => loadConfig({ FEED_MAX_SUBSCRIBERS: '10000' }, false),
      (error: unknown) =>
        error instanceof ConfigError &&
        error.message ===
          'Invalid configuration: FEED_MAX_SUBSCRIBERS must be at most half of MAX_CONNECTIONS (2048), so feed streams leave room for ordinary requests (got 10000; raise MAX_CONNECTIONS or lower FEED_MAX_SUBSCRIBERS)'
    )
  })

  test('WORKERS: a number of processes, or auto for one per core available', () => {
    assert.equal(workerCount(loadConfig({}, false).WORKERS), 1)
    assert.equal(workerCount(loadConfig({ WORKERS: '3' }, false).WORKERS), 3)
    assert.equal(workerCount(loadConfig({ WORKERS: 'auto' }, false).WORKERS), Math.min(availableParallelism(), 256))
  })

  test('HEAVY_READS: a number at once, or auto (the default) for half the cores shared among the workers, at least 1', () => {
    const limit = (env: Record<string, string>) => heavyReadLimit(loadConfig(env, false))
    assert.equal(limit({ HEAVY_READS: '3' }), 3)
    assert.equal(limit({ HEAVY_READS: '3', WORKERS: '8' }), 3)
    assert.equal(limit({}), Math.max(1, Math.floor(availableParallelism() / 2)))
    assert.equal(limit({ HEAVY_READS: 'auto', WORKERS: '2' }), Math.max(1, Math.floor(availableParallelism() / 4)))
    assert.equal(limit({ WORKERS: 'auto' }), 1)
    assert.throws(() => loadConfig({ HEAVY_READS: '0' }, false), /HEAVY_READS must be an integer from 1 to 1000, or auto/)
  })

  test('the real server exits 1 with that one line and no stack trace', { skip: processSkipReason }, () => {
    const directory = temporaryDirectory()
    try {
      const result = spawnSync(process.execPath, [SERVER_ENTRY], {
        cwd: directory,
        env: { PATH: process.env.PATH, PORT: 'eighty' },
        encoding: 'utf8'
      })
      assert.equal(result.status, 1)
      assert.equal(result.stderr, 'book-service: Invalid configuration: PORT must be an integer from 0 to 65535 (got "eighty")\n')
      assert.equal(result.stdout, '')
    } finally {
      removeDirectory(directory)
    }
  })

  test('reads a .env file in the working directory; the environment wins over it', () => {
    const directory = temporaryDirectory()
    const cwd = process.cwd()
    try {
      writeFileSync(join(directory, '.env'), 'PORT=9100\nAUTH_USERNAME=fromfile\n')
      process.chdir(directory)
      const config = loadConfig({ AUTH_USERNAME: 'fromenv' })
      assert.equal(config.PORT, 9100)
      assert.equal(config.AUTH_USERNAME, 'fromenv')
    } finally {
      process.chdir(cwd)
      removeDirectory(directory)
    }
  })

  test('a bad value in the .env file is named with the text written there', () => {
    const directory = temporaryDirectory()
    const cwd = process.cwd()
    try {
      writeFileSync(join(directory, '.env'), 'PORT=eighty\n')
      process.chdir(directory)
      assert.throws(
        () => loadConfig({}),
        (error: unknown) => error instanceof ConfigError && error.message === 'Invalid configuration: PORT must be an integer from 0 to 65535 (got "eighty")'
      )
    } finally {
      process.chdir(cwd)
      removeDirectory(directory)
    }
  })
})

describe('configuration values read by the app', () => {
  test('trustProxyOption: true, false, or the trimmed list of addresses and ranges', () => {
    assert.equal(trustProxyOption('true'), true)
    assert.equal(trustProxyOption('false'), false)
    assert.deepEqual(trustProxyOption('10.0.0.1'), ['10.0.0.1'])
    assert.deepEqual(trustProxyOption(' 10.0.0.1 , 192.168.0.0/16,,'), ['10.0.0.1', '192.168.0.0/16'])
  })
})
