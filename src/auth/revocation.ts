import type { ApiTokenChecks } from './api-tokens.js'
import type { TokenGenerations } from './token-generations.js'
import { API_TOKEN_CLAIM, GENERATION_CLAIM, type Claims } from './tokens.js'

/**
 * Whether a verified token still stands, whatever kind it is (docs/accounts.md "Accounts and
 * roles", docs/api-tokens.md): an API token (claim `book_service_api_token`) by its row
 * ({@link ApiTokenChecks}), a login token (claim `book_service_generation`) by its account's
 * generation ({@link TokenGenerations}); any other token signed with the secret cannot be revoked
 * this way. The bearer hook (src/http/pipeline/auth-hook.ts) asks on every request, after the
 * verified-token cache; the change feed asks every second for its open streams.
 */
export class TokenRevocation {
  constructor(
    private readonly generations: TokenGenerations,
    private readonly apiTokens: ApiTokenChecks
  ) {}

  /** True when `claims` are of a token that can be revoked (an API token or a login token). */
  revocable(claims: Claims): boolean {
    return Object.hasOwn(claims, API_TOKEN_CLAIM) || Object.hasOwn(claims, GENERATION_CLAIM)
  }

  /**
   * True when the token whose verified claims are `claims` is not revoked.
   *
   * @returns the answer at once when it is known, otherwise a promise of it, which rejects when the storage fails.
   */
  isCurrent(claims: Claims): boolean | Promise<boolean> {
    if (Object.hasOwn(claims, API_TOKEN_CLAIM)) return this.apiTokens.isCurrent(claims)
    const { sub, [GENERATION_CLAIM]: generation } = claims
    if (generation === undefined) return true
    if (typeof generation !== 'string' || typeof sub !== 'string') return false
    return this.generations.isCurrent(sub, generation)
  }

  /**
   * Drops what this process has cached of `username`'s account: its generation, and the standing
   * of its API tokens (after this process changed or removed it, so it is refused here at once).
   */
  forget(username: string): void {
    this.generations.forget(username)
    this.apiTokens.forgetAccount(username)
  }

  /** Drops the standing of the API token `id` (after this process revoked it). */
  forgetApiToken(id: string): void {
    this.apiTokens.forget(id)
  }
}
