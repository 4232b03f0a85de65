import { randomUUID } from 'node:crypto'
import { isTokenId, type ApiToken, type CreatedApiToken } from '../account/api-token-schema.js'
import { outranks } from '../account/roles.js'
import { isRole, usernameKey, type Role } from '../account/schema.js'
import type { ApiTokenStanding, ApiTokenStore, StoredApiToken } from '../storage/contracts/api-token-store.js'
import { RecentReads } from './recent-reads.js'
import type { ApiTokenClaims, Claims } from './tokens.js'

/**
 * How long a token's standing is trusted without asking the database again, in milliseconds: a
 * revocation, an account deleted or its role lowered on another process or instance is seen
 * within this plus one query (docs/api-tokens.md: within 1 s).
 */
export const API_TOKEN_CACHE_MS = 500

/** A token's last use is written at most once per this many milliseconds (one minute). */
export const LAST_USE_INTERVAL_MS = 60_000

/** Most tokens whose standing is kept. */
const MAX_ENTRIES = 10_000

/** Seconds in a day: `expires_in_days` to an `exp`. */
const DAY_SECONDS = 86_400

/**
 * The revocation check of API tokens (docs/api-tokens.md): a token is current while its row
 * exists (not revoked, its account not deleted), belongs to the token's `sub`, has the token's
 * `role`, and that role is not above its account's current role. Standings are read at most every
 * {@link API_TOKEN_CACHE_MS} per token ({@link RecentReads}); a change made through this process
 * is seen at once ({@link forget}, {@link forgetAccount}).
 *
 * Reading a current token's standing also records its use, when the last one recorded is a
 * minute old or more ({@link LAST_USE_INTERVAL_MS}); the write is conditional, so all processes
 * and instances together write it at most once a minute.
 */
export class ApiTokenChecks {
  /** Each token's standing by id; null when there is no such token. */
  private readonly standings: RecentReads<ApiTokenStanding | null>

  /**
   * @param store where the standings are read and the uses recorded.
   * @param onUseNotRecorded told when recording a use fails (the request goes on).
   * @param now the clock, in milliseconds.
   */
  constructor(
    private readonly store: Pick<ApiTokenStore, 'standing' | 'recordUse'>,
    private readonly onUseNotRecorded: (error: unknown) => void = () => {},
    private readonly now: () => number = Date.now
  ) {
    this.standings = new RecentReads(API_TOKEN_CACHE_MS, MAX_ENTRIES, now)
  }

  /**
   * True when the API token whose verified claims are `claims` is current.
   *
   * @returns the answer at once when cached, otherwise a promise of it (one query per token
   *   however many requests wait); the promise rejects when the storage fails.
   */
  isCurrent(claims: Claims): boolean | Promise<boolean> {
    const { sub, jti, role } = claims
    if (typeof sub !== 'string' || !isTokenId(jti) || !isRole(role)) return false
    const key = usernameKey(sub)
    const current = (standing: ApiTokenStanding | null): standing is ApiTokenStanding =>
      standing !== null && standing.usernameKey === key && standing.role === role && !outranks(role, standing.accountRole)
    const cached = this.standings.fresh(jti)
    if (cached !== undefined) return current(cached.value)
    return this.standings.read(jti, async () => (await this.store.standing(jti)) ?? null).then((standing) => {
      if (!current(standing)) return false
      this.recordUse(jti, standing)
      return true
    })
  }

  /** Drops what is cached for the token `id` (after this process revoked it). */
  forget(id: string): void {
    this.standings.forget(id)
  }

  /** Drops what is cached for the tokens of `username`'s account (after this process changed or removed it). */
  forgetAccount(username: string): void {
    const key = usernameKey(username)
    this.standings.forgetWhere((standing) => standing?.usernameKey === key)
  }

  /** Records a use of the token `id` unless its standing shows one within the last minute. */
  private recordUse(id: string, standing: ApiTokenStanding): void {
    const now = this.now()
    const since = now - LAST_USE_INTERVAL_MS
    if (standing.lastUsedAt !== null && standing.lastUsedAt >= since) return
    // The callers sharing this standing record nothing more.
    standing.lastUsedAt = now
    this.store.recordUse(id, now, since).catch(this.onUseNotRecorded)
  }
}

/** What {@link issueApiToken} makes a token of. */
export interface ApiTokenRequest {
  /** The account (any case); it must exist. */
  username: string
  name: string
  role: Role
  /** Days until it expires; undefined: never. */
  expiresInDays?: number
}

/**
 * Makes an API token (`POST /tokens`, `book-service api-token create`; docs/api-tokens.md): a new
 * id, stored with the request (never the token itself), and the token signed with its claims
 * (`sub`, `role`, `jti` = the id, `iat`, and `exp` when it expires).
 *
 * @returns the token as `POST /tokens` answers it, or `'missing'` when the account does not exist.
 * @throws the store's error when it cannot be stored.
 */
export async function issueApiToken(
  request: ApiTokenRequest,
  store: Pick<ApiTokenStore, 'create'>,
  sign: (claims: ApiTokenClaims) => string
): Promise<CreatedApiToken | 'missing'> {
  const id = randomUUID()
  const iat = Math.floor(Date.now() / 1000)
  const exp = request.expiresInDays === undefined ? undefined : iat + request.expiresInDays * DAY_SECONDS
  const stored = await store.create({
    id, username: request.username, name: request.name, role: request.role, createdAt: iat * 1000, expiresAt: exp === undefined ? null : exp * 1000
  })
  if (stored === 'missing') return 'missing'
  const token = sign({ sub: stored.username, role: stored.role, jti: id, iat, ...(exp === undefined ? {} : { exp }) })
  return { ...apiTokenView(stored), token, last_used_at: null }
}

const isoOrNull = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString())

/** A stored token as `GET /tokens` answers it: with its `username` when `withUsername` (`?all=true`). */
export function apiTokenView(token: StoredApiToken, withUsername = false): ApiToken {
  return {
    id: token.id, name: token.name, role: token.role, created_at: new Date(token.createdAt).toISOString(),
    expires_at: isoOrNull(token.expiresAt), last_used_at: isoOrNull(token.lastUsedAt), ...(withUsername ? { username: token.username } : {})
  }
}
