import { allows } from '../../../src/account/roles.js'
import { RoleName } from '../../../src/account/schema.js'
import type { Role } from '../../../src/client/index.js'
import { readClaims } from './claims.js'

/** The roles the service knows, from the account schema (`src/account/schema.ts`). */
export const ROLE_NAMES: readonly Role[] = (RoleName as unknown as { anyOf: { const: Role }[] }).anyOf.map((option) => option.const)

/** What the signed-in person may do, as the service decides it (`src/account/roles.ts`). */
export interface Rights {
  read: boolean
  write: boolean
  admin: boolean
}

/** A signed-in person: the token, whose it is, its role and rights, and when it runs out. */
export interface Session {
  token: string
  username: string
  /** The role claim; undefined when the token has none (such a token has every right). */
  role?: Role
  /** A role claim the service does not know: such a token has no rights (403 everywhere). */
  unknownRole: boolean
  rights: Rights
  /** When the token expires, in milliseconds since the epoch; undefined when it does not. */
  expiresAt?: number
}

/** sessionStorage key of the token: kept for this tab only, gone when it closes. */
const TOKEN_KEY = 'book-service.token'

/** The session a token opens (its claims are read, not verified: the service verifies each call). */
export function sessionOf(token: string): Session {
  const claims = readClaims(token) ?? {}
  const role = ROLE_NAMES.find((name) => name === claims.role)
  const unknownRole = claims.role !== undefined && role === undefined
  const right = (name: 'read' | 'write' | 'admin') => allows(claims, name)
  return {
    token,
    username: claims.sub ?? '',
    role,
    unknownRole,
    rights: { read: right('read'), write: right('write'), admin: right('admin') },
    expiresAt: claims.exp === undefined ? undefined : claims.exp * 1000
  }
}

/** The session kept in this tab, unless there is none or its token has expired. */
export function storedSession(now = Date.now()): { session?: Session; expired: boolean } {
  const token = sessionStorage.getItem(TOKEN_KEY)
  if (!token) return { expired: false }
  const session = sessionOf(token)
  if (session.expiresAt !== undefined && session.expiresAt <= now) {
    sessionStorage.removeItem(TOKEN_KEY)
    return { expired: true }
  }
  return { session, expired: false }
}

/** Keeps `token` for this tab. */
export function keepToken(token: string): void {
  sessionStorage.setItem(TOKEN_KEY, token)
}

/** Forgets the tab's token (sign out, expiry, revocation). */
export function forgetToken(): void {
  sessionStorage.removeItem(TOKEN_KEY)
}
