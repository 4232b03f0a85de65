import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto'

/**
 * scrypt cost parameters of new password hashes: N = 2^14, r = 8, p = 5, one of the OWASP
 * Password Storage Cheat Sheet's equivalent settings (16 MiB of memory per hash, about 0.1-0.3 s
 * of CPU). Node's built-in `crypto.scrypt` computes it off the main thread.
 */
export const SCRYPT_PARAMETERS = { N: 16384, r: 8, p: 5 } as const

/** Bytes of the random salt and of the derived key. */
const SALT_BYTES = 16
const KEY_BYTES = 32

/** Memory scrypt may use, in bytes (room for stored hashes with up to N = 2^17, r = 8). */
const MAX_MEMORY = 256 * 1024 * 1024

function derive(password: string, salt: Buffer, parameters: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(password.normalize('NFC'), salt, KEY_BYTES, { ...parameters, maxmem: MAX_MEMORY }, (error, key) =>
      error ? reject(error) : resolve(key)
    )
  )
}

/**
 * Hashes a password for storage: `scrypt$N=16384,r=8,p=5$<salt base64>$<key base64>` (the
 * parameters travel with the hash, so they can be raised later without breaking old hashes).
 * The password is NFC-normalised first, so the same characters typed differently match.
 */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES)
  const { N, r, p } = SCRYPT_PARAMETERS
  const key = await derive(password, salt, SCRYPT_PARAMETERS)
  return `scrypt$N=${N},r=${r},p=${p}$${salt.toString('base64')}$${key.toString('base64')}`
}

const HASH_FORMAT = /^scrypt\$N=(\d+),r=(\d+),p=(\d+)\$([A-Za-z0-9+/=]+)\$([A-Za-z0-9+/=]+)$/

/**
 * Checks a password against a hash made by {@link hashPassword}, comparing the derived keys in
 * constant time. Given no hash (the account does not exist) it derives a key all the same and
 * answers false, so an unknown username takes as long as a wrong password.
 *
 * @returns true when the password matches; false otherwise, also for a malformed stored hash.
 */
export async function verifyPassword(password: string, stored: string | undefined): Promise<boolean> {
  const match = stored === undefined ? undefined : HASH_FORMAT.exec(stored)
  if (!match) {
    await derive(password, randomBytes(SALT_BYTES), SCRYPT_PARAMETERS)
    return false
  }
  const [, N, r, p, salt, key] = match
  const expected = Buffer.from(key!, 'base64')
  const actual = await derive(password, Buffer.from(salt!, 'base64'), { N: Number(N), r: Number(r), p: Number(p) })
  return actual.length === expected.length && timingSafeEqual(actual, expected)
}

const bootstrapHashes = new Map<string, Promise<string>>()

/**
 * {@link hashPassword} of the bootstrap admin's password (`AUTH_PASSWORD`), computed at most once
 * per process: it is only stored when no admin exists yet, and every app a process builds (tests
 * build many) would otherwise pay for a fresh hash at start.
 */
export function bootstrapHash(password: string): Promise<string> {
  let hash = bootstrapHashes.get(password)
  if (hash === undefined) {
    hash = hashPassword(password)
    bootstrapHashes.set(password, hash)
  }
  return hash
}
