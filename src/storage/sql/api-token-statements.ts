import type { Engine } from '../contracts/engine.js'
import { placeholders } from './book-statements.js'

/**
 * The one description of the statements of the `api_tokens` table (migration 0012), for both
 * engines: the same SQL but for the placeholders, each used once, in order. A token belongs to the
 * account whose username key and `created_at` it holds, so a row left by an account deleted by a
 * release that does not know tokens never matches a re-created account of the same name.
 */

/** The join of a token with its account. */
const WITH_ACCOUNT = 'api_tokens t JOIN accounts a ON a.username_key = t.username_key AND a.created_at = t.account_created_at'

/** A token as listed: a `StoredApiToken` row (times as numbers, or PostgreSQL's bigint text). */
const TOKEN_COLUMNS = 't.id, a.username, t.name, t.role, t.created_at AS "createdAt", t.expires_at AS "expiresAt", t.last_used_at AS "lastUsedAt"'

/**
 * The API token statements of `engine`, as SQL text. Parameters, in order:
 * - `insert`: id, name, role, created at, expires at (ms or null), the account's username key;
 *   inserts nothing when there is no such account;
 * - `byId`, `standing`, `revoke`: the token id; `revokeOwn`: the token id, the username key;
 * - `list`: the username key; `listAll`: none (both newest first);
 * - `recordUse`: now, the token id, since (ms): only when no use at or after `since` is recorded;
 * - `deleteOfAccount`: the username key (run with the account's deletion).
 */
export function apiTokenStatements(engine: Engine) {
  const [id, name, role, createdAt, expiresAt, key] = placeholders(engine, 6)
  const [first, second, third] = placeholders(engine, 3)
  return {
    insert: `INSERT INTO api_tokens (id, username_key, account_created_at, name, role, created_at, expires_at)
      SELECT CAST(${id} AS text), username_key, created_at, CAST(${name} AS text), CAST(${role} AS text),
        CAST(${createdAt} AS bigint), CAST(${expiresAt} AS bigint)
      FROM accounts WHERE username_key = ${key}`,
    byId: `SELECT ${TOKEN_COLUMNS} FROM ${WITH_ACCOUNT} WHERE t.id = ${first}`,
    standing: `SELECT t.username_key AS "usernameKey", t.role, a.role AS "accountRole", t.last_used_at AS "lastUsedAt"
      FROM ${WITH_ACCOUNT} WHERE t.id = ${first}`,
    list: `SELECT ${TOKEN_COLUMNS} FROM ${WITH_ACCOUNT} WHERE t.username_key = ${first} ORDER BY t.ordinal DESC`,
    listAll: `SELECT ${TOKEN_COLUMNS} FROM ${WITH_ACCOUNT} ORDER BY t.ordinal DESC`,
    recordUse: `UPDATE api_tokens SET last_used_at = ${first} WHERE id = ${second} AND (last_used_at IS NULL OR last_used_at < ${third})`,
    revoke: `DELETE FROM api_tokens WHERE id = ${first}`,
    revokeOwn: `DELETE FROM api_tokens WHERE id = ${first} AND username_key = ${second}`,
    deleteOfAccount: `DELETE FROM api_tokens WHERE username_key = ${first}`
  }
}
