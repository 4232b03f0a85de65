import { call } from './request.js'

/** `POST /login` (`docs/contract.md` "Authentication"): the token for `username` and `password`. */
export async function login(username: string, password: string): Promise<string> {
  return (await call<{ token: string }>({}, 'POST', '/login', { body: { username, password } })).data.token
}
