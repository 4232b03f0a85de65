import { join } from 'node:path'
import { ConfigError, type Config } from '../config.js'
import { engineOf } from '../storage/contracts/engine.js'
import { keptValue } from '../storage/files.js'

/** Files (in the data folder) that keep generated credentials between starts. */
const SECRET_FILE = 'secret_token'
const PASSWORD_FILE = 'auth_password'

/** Where the first admin's password comes from, as the start log says it: `AUTH_PASSWORD`, or the file that keeps it. */
export type PasswordSource = 'AUTH_PASSWORD' | `${string}/${typeof PASSWORD_FILE}`

/** The secret and the first admin's password the service starts with. */
export interface Credentials {
  /** Signs and verifies tokens. */
  secret: string
  /** The first admin's password. */
  password: string
  /** Where {@link Credentials.password} came from. */
  passwordFrom: PasswordSource
}

/** A generated secret or password cannot be kept in the data folder; its message is the one line to print. */
export class CredentialsError extends Error {}

/**
 * The signing secret (docs/contract.md "Everything else"): `SECRET_TOKEN`, or with SQLite the one
 * kept in `folder` (the data folder, `dataFolder` of storage/files.ts), generated (mode 0600) the
 * first time. The server and `book-service token` both use this, so a minted token verifies on
 * the server.
 *
 * @throws {ConfigError} when `SECRET_TOKEN` is unset and `DATABASE_URL` is PostgreSQL (every
 *   instance must share one secret, so none is generated).
 * @throws {CredentialsError} when the folder cannot keep the generated secret.
 */
export function resolveSecret(config: Pick<Config, 'SECRET_TOKEN' | 'DATABASE_URL'>, folder: string): string {
  if (config.SECRET_TOKEN !== undefined) return config.SECRET_TOKEN
  if (engineOf(config.DATABASE_URL) === 'postgres') {
    throw new ConfigError('SECRET_TOKEN must be set when DATABASE_URL is PostgreSQL (every instance must share it)')
  }
  return kept(folder, SECRET_FILE, 'secret').value
}

/**
 * The start-up's credentials step (docs/architecture.md "Paths through the code"): the secret
 * ({@link resolveSecret}) and the first admin's password (docs/contract.md "Authentication"):
 * `AUTH_PASSWORD`, or the one kept in `folder`, generated the first time; then `announce` is told
 * the lines to show the operator once.
 *
 * @throws {ConfigError} or {@link CredentialsError} as {@link resolveSecret}, and when the folder
 *   cannot keep the generated password.
 */
export function resolveCredentials(
  config: Pick<Config, 'SECRET_TOKEN' | 'AUTH_PASSWORD' | 'AUTH_USERNAME' | 'DATABASE_URL'>,
  folder: string,
  announce: (lines: string) => void
): Credentials {
  const secret = resolveSecret(config, folder)
  if (config.AUTH_PASSWORD !== undefined) return { secret, password: config.AUTH_PASSWORD, passwordFrom: 'AUTH_PASSWORD' }
  const path = join(folder, PASSWORD_FILE)
  const password = kept(folder, PASSWORD_FILE, 'password')
  if (password.created) {
    announce(
      `book-service: generated the login password for "${config.AUTH_USERNAME}": ${password.value}\n` +
        `book-service: it is kept in ${path} (set AUTH_PASSWORD to choose your own)\n`
    )
  }
  return { secret, password: password.value, passwordFrom: path as PasswordSource }
}

/** {@link keptValue}, its OS error told as the one line of a {@link CredentialsError}. */
function kept(folder: string, file: string, what: string): { value: string; created: boolean } {
  try {
    return keptValue(folder, file)
  } catch (error) {
    throw new CredentialsError(`cannot keep the generated ${what} in the data folder: ${(error as Error).message}`)
  }
}
