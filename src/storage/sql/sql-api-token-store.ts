import type { Role } from '../../account/schema.js'
import { isTokenId } from '../../account/api-token-schema.js'
import type { ApiTokenStanding, ApiTokenStore, NewApiToken, StoredApiToken } from '../contracts/api-token-store.js'
import type { Engine } from '../contracts/engine.js'
import { storedKey } from './account-rules.js'
import { apiTokenStatements } from './api-token-statements.js'

/** How an engine runs the statements of {@link SqlApiTokenStore}. */
export interface ApiTokenSqlRunner {
  /** The rows of a query. */
  rows<R>(sql: string, values: readonly unknown[]): Promise<R[]>
  /** A write, committed (on SQLite, on disk) before it resolves; the rows it changed. */
  changes(sql: string, values: readonly unknown[]): Promise<number>
  /** A write that need not survive a power cut (a token's last use). */
  note(sql: string, values: readonly unknown[]): Promise<void>
}

type TokenRow = Omit<StoredApiToken, 'createdAt' | 'expiresAt' | 'lastUsedAt'> & {
  createdAt: number | string; expiresAt: number | string | null; lastUsedAt: number | string | null
}
type StandingRow = Omit<ApiTokenStanding, 'lastUsedAt'> & { lastUsedAt: number | string | null }

// PostgreSQL's bigint arrives as text.
const nullableNumber = (value: number | string | null): number | null => (value === null ? null : Number(value))

function tokenOf(row: TokenRow): StoredApiToken {
  return { ...row, createdAt: Number(row.createdAt), expiresAt: nullableNumber(row.expiresAt), lastUsedAt: nullableNumber(row.lastUsedAt) }
}

/**
 * The {@link ApiTokenStore} of either engine over its {@link ApiTokenSqlRunner}: the statements of
 * sql/api-token-statements.ts. A text that is not a token id ({@link isTokenId}) names no token,
 * without a query.
 */
export class SqlApiTokenStore implements ApiTokenStore {
  private readonly sql

  constructor(
    private readonly run: ApiTokenSqlRunner,
    engine: Engine
  ) {
    this.sql = apiTokenStatements(engine)
  }

  async create(token: NewApiToken): Promise<StoredApiToken | 'missing'> {
    const key = storedKey(token.username)
    if (key === undefined) return 'missing'
    const values = [token.id, token.name, token.role, token.createdAt, token.expiresAt, key]
    if ((await this.run.changes(this.sql.insert, values)) === 0) return 'missing'
    const [row] = await this.run.rows<TokenRow>(this.sql.byId, [token.id])
    return row === undefined ? 'missing' : tokenOf(row)
  }

  async list(username?: string): Promise<StoredApiToken[]> {
    if (username === undefined) return (await this.run.rows<TokenRow>(this.sql.listAll, [])).map(tokenOf)
    const key = storedKey(username)
    if (key === undefined) return []
    return (await this.run.rows<TokenRow>(this.sql.list, [key])).map(tokenOf)
  }

  async standing(id: string): Promise<ApiTokenStanding | undefined> {
    if (!isTokenId(id)) return undefined
    const [row] = await this.run.rows<StandingRow>(this.sql.standing, [id])
    return row === undefined ? undefined : { usernameKey: row.usernameKey, role: row.role as Role, accountRole: row.accountRole as Role, lastUsedAt: nullableNumber(row.lastUsedAt) }
  }

  async recordUse(id: string, now: number, since: number): Promise<void> {
    if (isTokenId(id)) await this.run.note(this.sql.recordUse, [now, id, since])
  }

  async revoke(id: string, username?: string): Promise<boolean> {
    if (!isTokenId(id)) return false
    if (username === undefined) return (await this.run.changes(this.sql.revoke, [id])) > 0
    const key = storedKey(username)
    return key !== undefined && (await this.run.changes(this.sql.revokeOwn, [id, key])) > 0
  }
}
