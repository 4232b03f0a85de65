import type { FastifyInstance } from 'fastify'
import { TEST_PASSWORD, authHeaders, signToken } from './app.js'

/** The password every account made by {@link createAccount} gets (12 characters or more). */
export const ACCOUNT_PASSWORD = 'a long enough passphrase'

/** Logs in on `app` and returns the token (throws when the login does not answer 200). */
export async function login(app: FastifyInstance, username: string, password = ACCOUNT_PASSWORD): Promise<string> {
  const response = await app.inject({ method: 'POST', url: '/login', payload: { username, password } })
  if (response.statusCode !== 200) throw new Error(`login of ${username}: ${response.body}`)
  return response.json().data.token as string
}

/** The bootstrap admin's token (`admin` / the test password), from POST /login. */
export function adminLogin(app: FastifyInstance): Promise<string> {
  return login(app, 'admin', TEST_PASSWORD)
}

/** Creates an account through POST /users with a role-less token (full rights). */
export async function createAccount(app: FastifyInstance, username: string, role: string, password = ACCOUNT_PASSWORD): Promise<void> {
  const response = await app.inject({ method: 'POST', url: '/users', headers: authHeaders(signToken()), payload: { username, password, role } })
  if (response.statusCode !== 201) throw new Error(`creating ${username}: ${response.body}`)
}
