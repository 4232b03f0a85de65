import type { Role } from '../storage/account-store.js'

/**
 * What a request needs (issue 15: "Roles"): `read` (GET /books, GET /book/{id}), `write` (the
 * other book operations), `admin` (the /users routes).
 */
export type Right = 'read' | 'write' | 'admin'

const GRANTS: Record<Role, readonly Right[]> = {
  reader: ['read'],
  editor: ['read', 'write'],
  admin: ['read', 'write', 'admin']
}

/**
 * True when a token of `role` has `right`. A token without a `role` claim (`undefined`: minted
 * with the secret by another tool, as the contract allows) has every right: whoever holds the
 * secret can mint any role anyway.
 */
export function allows(role: Role | undefined, right: Right): boolean {
  return role === undefined || GRANTS[role].includes(right)
}

/** The right a book request needs: `read` for GET and HEAD, `write` for anything else. */
export function bookRight(method: string): Right {
  return method === 'GET' || method === 'HEAD' ? 'read' : 'write'
}
