import { PASSWORD_LENGTH } from '../../../src/account/schema.js'
import { validatePassword, validateUsername } from './account-validators.js'

/**
 * The rules of a username and a password: Ajv's validators of the account schema the API
 * validates with (`src/account/schema.ts`), compiled at build time (`account-validators.ts`).
 */

/** Whether the API would accept `value` as a new account's username. */
export const validUsername = (value: string): boolean => validateUsername(value)

/** Whether the API would accept `value` as a password. */
export const validPassword = (value: string): boolean => validatePassword(value)

/** The password's shortest and longest lengths, in characters. */
export const passwordLength = { minimum: PASSWORD_LENGTH.min, maximum: PASSWORD_LENGTH.max }
