import type { Role } from '../../account/schema.js'

/**
 * An API token as stored (docs/api-tokens.md): what the API shows of it, never the token itself,
 * which is not kept. Times are ms since the epoch.
 */
export interface StoredApiToken {
  /** The token's id: its `jti` claim. */
  id: string
  /** Its account's username, as the account has it. */
  username: string
  name: string
  role: Role
  createdAt: number
  /** When its `exp` claim ends it; null: never. */
  expiresAt: number | null
  /** When a request last used it, to within a minute; null: never used. */
  lastUsedAt: number | null
}

/** A new token for {@link ApiTokenStore.create}: the account is named by its username (any case). */
export type NewApiToken = Omit<StoredApiToken, 'lastUsedAt'>

/** What the revocation check needs of a token (src/auth/api-tokens.ts). */
export interface ApiTokenStanding {
  /** The username key of its account. */
  usernameKey: string
  /** The role it was created with. */
  role: Role
  /** Its account's current role. */
  accountRole: Role
  lastUsedAt: number | null
}

/**
 * Where API tokens live: the `api_tokens` table (migration 0012), on SQLite or PostgreSQL. A token
 * belongs to one account: deleting the account deletes its tokens (in the account's transaction),
 * and a token whose account is gone, or was deleted and made again, is never found by
 * {@link standing} nor listed. Every write but {@link recordUse} is committed (and on SQLite on
 * disk) before it resolves.
 */
export interface ApiTokenStore {
  /**
   * Stores the token for the account `token.username` names (any case).
   *
   * @returns the stored token (with the account's own spelling of the username), or `'missing'`
   *   when the account does not exist.
   */
  create(token: NewApiToken): Promise<StoredApiToken | 'missing'>
  /** The tokens of `username`'s account (any case), or of every account when undefined; newest first. */
  list(username?: string): Promise<StoredApiToken[]>
  /** The standing of the token `id` with its account, or undefined when there is no such token (revoked, its account deleted). */
  standing(id: string): Promise<ApiTokenStanding | undefined>
  /**
   * Records that the token `id` was used at `now` (ms) unless a use at or after `since` is already
   * recorded: at most one write per token per interval, whatever the number of processes and
   * instances. Need not survive a power cut.
   */
  recordUse(id: string, now: number, since: number): Promise<void>
  /**
   * Revokes (deletes) the token `id`; with `username`, only when it belongs to that account (any case).
   *
   * @returns false when no such token was found.
   */
  revoke(id: string, username?: string): Promise<boolean>
}
