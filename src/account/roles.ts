import { isRole, ROLES, type Role } from './schema.js'

/**
 * What a request needs (docs/accounts.md "Accounts and roles"): `read` (GET /books, GET /book/{id}),
 * `write` (the other book operations), `admin` (the /users routes).
 */
export type Right = 'read' | 'write' | 'admin'

const GRANTS: Record<Role, readonly Right[]> = {
  reader: ['read'],
  editor: ['read', 'write'],
  admin: ['read', 'write', 'admin']
}

/**
 * True when a token whose claims are `claims` has `right` (docs/contract.md "Hardening"):
 * - no `role` claim: every right (a token minted with the secret by another tool, as the contract
 *   allows; whoever holds the secret can mint any role anyway);
 * - `role` exactly `reader`, `editor` or `admin` (a string, case as written): that role's rights;
 * - any other `role` (`"Reader"`, `["reader"]`, `null`, …): no right at all, so every protected
 *   route answers 403. A claim the service cannot read never widens what a token may do.
 */
export function allows(claims: { readonly role?: unknown }, right: Right): boolean {
  if (!Object.hasOwn(claims, 'role')) return true
  const { role } = claims
  return isRole(role) && GRANTS[role].includes(right)
}

/** The right a book request needs: `read` for GET and HEAD, `write` for anything else. */
export function bookRight(method: string): Right {
  return method === 'GET' || method === 'HEAD' ? 'read' : 'write'
}

/** True when `role` may do more than `other` (`admin` > `editor` > `reader`). */
export function outranks(role: Role, other: Role): boolean {
  return ROLES.indexOf(role) > ROLES.indexOf(other)
}
