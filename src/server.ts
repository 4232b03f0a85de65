#!/usr/bin/env node
import { join } from 'node:path'
import { buildApp } from './app.js'
import { ConfigError, isPostgresUrl, loadConfig } from './config.js'
import { dataDirectory, keptSecret } from './secrets.js'
import { openStore } from './storage/open.js'

/** Files (in the data folder) that keep generated credentials between starts. */
const SECRET_FILE = 'secret_token'
const PASSWORD_FILE = 'auth_password'

/** Prints one line for the operator and exits 1 (bad configuration, storage not reachable). */
function fail(message: string): never {
  process.stderr.write(`book-service: ${message}\n`)
  process.exit(1)
}

/**
 * Starts the service: reads the configuration once, resolves the secret and password
 * (generating them on first start), opens the storage, listens, and on SIGTERM/SIGINT stops
 * accepting, finishes in-flight requests, closes the storage and exits 0.
 */
async function main(): Promise<void> {
  let config
  try {
    config = loadConfig()
  } catch (error) {
    if (error instanceof ConfigError) fail(error.message)
    throw error
  }
  const directory = dataDirectory(config.DATABASE_URL)
  if (config.SECRET_TOKEN === undefined && isPostgresUrl(config.DATABASE_URL)) {
    fail('SECRET_TOKEN must be set when DATABASE_URL is PostgreSQL (every instance must share it)')
  }
  const secret = config.SECRET_TOKEN ?? keptSecret(directory, SECRET_FILE).value
  let password = config.AUTH_PASSWORD
  if (password === undefined) {
    const kept = keptSecret(directory, PASSWORD_FILE)
    password = kept.value
    if (kept.created) {
      process.stderr.write(
        `book-service: generated the login password for "${config.AUTH_USERNAME}": ${password}\n` +
          `book-service: it is kept in ${join(directory, PASSWORD_FILE)} (set AUTH_PASSWORD to choose your own)\n`
      )
    }
  }

  // Until the app's logger exists, a pooled connection lost between requests is told on stderr.
  let connectionLost = (error: unknown): void => {
    process.stderr.write(`book-service: database connection lost (${(error as Error).message}); reconnecting on the next query\n`)
  }
  let store
  try {
    store = await openStore(
      config,
      (error, delayMs) =>
        process.stderr.write(`book-service: database unreachable (${(error as Error).message}); retrying in ${delayMs} ms\n`),
      (error) => connectionLost(error)
    )
  } catch (error) {
    fail(`cannot open the storage at DATABASE_URL: ${(error as Error).message || String(error)}`)
  }
  const app = await buildApp({ config: { ...config, SECRET_TOKEN: secret, AUTH_PASSWORD: password }, store })
  connectionLost = (error) => app.log.warn({ err: error }, 'database connection lost; reconnecting on the next query')

  let stopping = false
  const stop = (signal: string) => {
    if (stopping) return
    stopping = true
    app.log.info({ signal }, 'stopping: finishing in-flight requests')
    app.close().then(
      () => process.exit(0),
      (error: unknown) => {
        app.log.error({ err: error }, 'error while stopping')
        process.exit(1)
      }
    )
  }
  process.once('SIGTERM', stop)
  process.once('SIGINT', stop)

  try {
    await app.listen({ port: config.PORT, host: config.HOST })
  } catch (error) {
    await app.close()
    fail(`cannot listen on ${config.HOST}:${config.PORT}: ${(error as Error).message}`)
  }
}

await main()
