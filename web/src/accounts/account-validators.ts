import { Ajv } from 'ajv'
import { Password, Username } from '../../../src/account/schema.js'
import { PAGE_VALIDATION_OPTIONS, type Validate } from '../book/book-validators.js'

/**
 * The page's validators of a username and a password: Ajv's, of the account schema the API
 * validates with (`src/account/schema.ts`); replaced in the bundle by their standalone code,
 * compiled at build time, as `web/src/book/book-validators.ts` says.
 */

/** The schemas compiled, by the name of their validator's export. */
export const SCHEMAS = { validateUsername: Username, validatePassword: Password } as const

const ajv = new Ajv(PAGE_VALIDATION_OPTIONS)

/** A new account's username. */
export const validateUsername: Validate = ajv.compile(SCHEMAS.validateUsername)

/** A password. */
export const validatePassword: Validate = ajv.compile(SCHEMAS.validatePassword)
