import { join } from 'node:path'
import { ConfigError, type Config } from '../config.js'
import { engineOf } from '../storage/contracts/engine.js'
import { dataDirectory, keptSecret } from './secrets.js'

/** Files (in the data folder) that keep generated credentials between starts. */
const SECRET_FILE = 'secret_token'
const PASSWORD_FILE = 'auth_password'

/**
 * The signing secret (docs/contract.md "Everything else"): `SECRET_TOKEN`, or with SQLite the one kept
 * in the data folder, generated (mode 0600) the first time. The server and `book-service token`
 * both use this, so a minted token verifies on the server.
 *
 * @throws {ConfigError} when `SECRET_TOKEN` is unset and `DATABASE_URL` is PostgreSQL (every
 *   instance must share one secret, so none is generated).
 */
export function resolveSecret(config: Pick<Config, 'SECRET_TOKEN' | 'DATABASE_URL'>): string {
  if (config.SECRET_TOKEN !== undefined) return config.SECRET_TOKEN
  if (engineOf(config.DATABASE_URL) === 'postgres') {
    throw new ConfigError('SECRET_TOKEN must be set when DATABASE_URL is PostgreSQL (every instance must share it)')
  }
  return keptSecret(dataDirectory(config.DATABASE_URL), SECRET_FILE).value
}

/**
 * The first admin's password (docs/contract.md "Authentication"): `AUTH_PASSWORD`, or the one kept
 * in the data folder, generated the first time; then `announce` is told the lines to show the
 * operator once.
 */
export function resolvePassword(
  config: Pick<Config, 'AUTH_PASSWORD' | 'AUTH_USERNAME' | 'DATABASE_URL'>,
  announce: (lines: string) => void
): string {
  if (config.AUTH_PASSWORD !== undefined) return config.AUTH_PASSWORD
  const directory = dataDirectory(config.DATABASE_URL)
  const kept = keptSecret(directory, PASSWORD_FILE)
  if (kept.created) {
    announce(
      `book-service: generated the login password for "${config.AUTH_USERNAME}": ${kept.value}\n` +
        `book-service: it is kept in ${join(directory, PASSWORD_FILE)} (set AUTH_PASSWORD to choose your own)\n`
    )
  }
  return kept.value
}
