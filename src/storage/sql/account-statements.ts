import type { Account, Role } from '../../account/schema.js'
import type { AccountGeneration, StoredAccount } from '../contracts/account-store.js'
import { placeholders } from './book-statements.js'
import type { Engine } from '../contracts/engine.js'
import { apiTokenStatements } from './api-token-statements.js'

/**
 * The one description of the statements of the `accounts` table, for both engines,
 * like sql/book-statements.ts for books: the same SQL but for the placeholders, each used once, in order.
 * Each engine's account store (`sqlite-account-store.ts`, `postgres-account-store.ts`) runs them (SQLite prepared on the store's connection, PostgreSQL
 * on its pool, the writes inside its advisory-locked transaction).
 */

/** The columns of an `Account` (never its password). */
export const ACCOUNT_COLUMNS = 'username, role, created_at, updated_at'
/** {@link ACCOUNT_COLUMNS}, the password hash and the token generation: a `StoredAccount`. */
const STORED_ACCOUNT_COLUMNS = `${ACCOUNT_COLUMNS}, password_hash AS "passwordHash", generation`

/** The values of `insert`, in its order. */
export type AccountInsertValues = [
  key: string,
  username: string,
  skeleton: string,
  passwordHash: string,
  role: Role,
  generation: string,
  createdAt: string,
  updatedAt: string
]

/** The values of `update`, in its order (null: keep the stored value). */
export type AccountUpdateValues = [passwordHash: string | null, role: Role | null, generation: string, updatedAt: string, key: string]

/**
 * The account statements as one engine runs them, on its connection or inside one of its
 * transactions (`sqlite-account-store.ts`, `postgres-account-store.ts`). Keys are username keys.
 */
export interface AccountStatements {
  list(): Promise<Account[]>
  find(key: string): Promise<StoredAccount | undefined>
  generation(key: string): Promise<AccountGeneration | undefined>
  /** How many accounts are admins. */
  admins(): Promise<number>
  /** Stores the row; false when its username key or its skeleton is taken. */
  insert(values: AccountInsertValues): Promise<boolean>
  /** Changes the stored account; returns it as changed. */
  update(values: AccountUpdateValues): Promise<Account>
  /** Removes the account and its API tokens. */
  delete(key: string): Promise<void>
}

/**
 * The account statements of `engine`, as SQL text. Parameters, in order:
 * - `list`: none (every account by username key); `admins`: none (how many admins, as `admins`);
 * - `find`, `generation`, `delete`, `deleteApiTokens`: the username key (an account's deletion runs
 *   both: its API tokens go with it);
 * - `insert`: username key, username, its confusable skeleton, password hash, role, generation,
 *   created at, updated at; nothing happens when the username key or the skeleton is taken (both
 *   unique: the check is the insert itself, so concurrent creates cannot both pass it);
 * - `update`: password hash and role (null: keep), generation, updated at, username key;
 *   returns the {@link ACCOUNT_COLUMNS}.
 */
export function accountStatements(engine: Engine) {
  const [key] = placeholders(engine, 1)
  const insertValues = placeholders(engine, 8).join(', ')
  const [hash, role, generation, updatedAt, updatedKey] = placeholders(engine, 5)
  return {
    list: `SELECT ${ACCOUNT_COLUMNS} FROM accounts ORDER BY username_key`,
    find: `SELECT ${STORED_ACCOUNT_COLUMNS} FROM accounts WHERE username_key = ${key}`,
    generation: `SELECT role, generation FROM accounts WHERE username_key = ${key}`,
    admins: "SELECT CAST(count(*) AS INTEGER) AS admins FROM accounts WHERE role = 'admin'",
    insert: `INSERT INTO accounts (username_key, username, username_skeleton, password_hash, role, generation, created_at, updated_at)
      VALUES (${insertValues}) ON CONFLICT DO NOTHING`,
    update: `UPDATE accounts SET password_hash = coalesce(${hash}, password_hash), role = coalesce(${role}, role),
      generation = ${generation}, updated_at = ${updatedAt} WHERE username_key = ${updatedKey} RETURNING ${ACCOUNT_COLUMNS}`,
    delete: `DELETE FROM accounts WHERE username_key = ${key}`,
    deleteApiTokens: apiTokenStatements(engine).deleteOfAccount
  }
}
