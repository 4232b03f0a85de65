import type { PasswordSource } from './credentials.js'
import { bootstrapHash } from './password.js'

/** What {@link bootstrapFirstAdmin} needs of the accounts: the store's one-shot creation. */
export interface FirstAdminAccounts {
  /** Creates `username` as an admin, its hash made by `passwordHash`, when no admin exists; true when it did. */
  createFirstAdmin(username: string, passwordHash: () => Promise<string>): Promise<boolean>
}

/** Where {@link bootstrapFirstAdmin} says it created the account: a pino logger or Fastify's. */
export interface FirstAdminLog {
  info(fields: { username: string; passwordFrom: PasswordSource }, message: string): void
}

/**
 * Makes `AUTH_USERNAME` with the password `AUTH_PASSWORD` the first admin account while no admin
 * exists (docs/accounts.md "Accounts and roles"), and logs it once created, saying where its
 * password came from (`AUTH_PASSWORD`, or the file of the data folder that keeps the generated one). The password is hashed
 * only when the account is created, at most once per process (`bootstrapHash`). Both the single
 * process (`app.ts`) and the cluster primary (`cli/workers/primary.ts`) start this way.
 *
 * @param credentials `AUTH_USERNAME`, the password and where it came from (the setting or the data folder's file).
 * @returns true when it created the account, false when an admin already existed.
 * @throws what the store throws when it cannot read or write the accounts.
 */
export async function bootstrapFirstAdmin(
  accounts: FirstAdminAccounts,
  credentials: { username: string; password: string; passwordFrom: PasswordSource },
  log: FirstAdminLog
): Promise<boolean> {
  const { username, password, passwordFrom } = credentials
  const created = await accounts.createFirstAdmin(username, () => bootstrapHash(password))
  if (created) log.info({ username, passwordFrom }, `created the first admin account "${username}", its password from ${passwordFrom}`)
  return created
}
