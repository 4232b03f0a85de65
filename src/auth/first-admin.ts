import { bootstrapHash } from './password.js'

/** What {@link bootstrapFirstAdmin} needs of the accounts: the store's one-shot creation. */
export interface FirstAdminAccounts {
  /** Creates `username` as an admin, its hash made by `passwordHash`, when no admin exists; true when it did. */
  createFirstAdmin(username: string, passwordHash: () => Promise<string>): Promise<boolean>
}

/** Where {@link bootstrapFirstAdmin} says it created the account: a pino logger or Fastify's. */
export interface FirstAdminLog {
  info(fields: { username: string }, message: string): void
}

/**
 * Makes `AUTH_USERNAME` with the password `AUTH_PASSWORD` the first admin account while no admin
 * exists (docs/accounts.md "Accounts and roles"), and logs it once created. The password is hashed
 * only when the account is created, at most once per process (`bootstrapHash`). Both the single
 * process (`app.ts`) and the cluster primary (`cli/workers/primary.ts`) start this way.
 *
 * @param credentials `AUTH_USERNAME` and the password (from the setting or kept in the data folder).
 * @returns true when it created the account, false when an admin already existed.
 * @throws what the store throws when it cannot read or write the accounts.
 */
export async function bootstrapFirstAdmin(
  accounts: FirstAdminAccounts,
  credentials: { username: string; password: string },
  log: FirstAdminLog
): Promise<boolean> {
  const { username, password } = credentials
  const created = await accounts.createFirstAdmin(username, () => bootstrapHash(password))
  if (created) log.info({ username }, 'created the first admin account from AUTH_USERNAME and AUTH_PASSWORD')
  return created
}
