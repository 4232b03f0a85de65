import { Ajv, type ErrorObject } from 'ajv'
import { BookInput } from '../../../src/book/schema.js'

/**
 * The page's validator of a book: Ajv's, of the very schema the API validates with
 * (`src/book/schema.ts`; docs/contract.md "Book bodies"). In the page's bundle `web/build.ts`
 * replaces this module (and `web/src/accounts/account-validators.ts`) with Ajv's standalone code of
 * the same validators, compiled at build time: no Ajv and no `eval` in the browser, whose
 * `Content-Security-Policy` forbids it. In Node (the tests) it compiles them with Ajv here. Either
 * way no interpreter of JSON Schema is ours.
 */

/** A compiled validator: true when `value` is valid, else its `errors`. */
export type Validate = ((value: unknown) => boolean) & { errors?: ErrorObject[] | null }

/**
 * Ajv's options: those of the API's body validation (no type coercion, nothing removed or
 * defaulted; `BODY_VALIDATION_OPTIONS` in `src/book/validation.ts`), with every error, so each
 * field of a form gets its own message.
 */
export const PAGE_VALIDATION_OPTIONS = { coerceTypes: false, removeAdditional: false, useDefaults: false, allErrors: true } as const

/** The schemas compiled, by the name of their validator's export. */
export const SCHEMAS = { validateBookInput: BookInput } as const

/** `POST /book`'s body. */
export const validateBookInput: Validate = new Ajv(PAGE_VALIDATION_OPTIONS).compile(SCHEMAS.validateBookInput)
