import { Password, Username } from '../../../src/account/schema.js'

/**
 * The rules of a username and a password, read from the account schema the API validates with
 * (`src/account/schema.ts`), replaced by plain JSON in the page's build like the book schema.
 */
interface TextSchema {
  minLength: number
  maxLength: number
  pattern?: string
  not?: { pattern: string }
}

const username = Username as unknown as TextSchema
const password = Password as unknown as TextSchema

/** Whether `value` meets `schema`: length in code points, its pattern, and not its forbidden pattern. */
function meets(schema: TextSchema, value: string): boolean {
  const length = [...value].length
  if (length < schema.minLength || length > schema.maxLength) return false
  if (schema.pattern !== undefined && !new RegExp(schema.pattern, 'u').test(value)) return false
  return schema.not === undefined || !new RegExp(schema.not.pattern, 'u').test(value)
}

/** Whether the API would accept `value` as a new account's username. */
export const validUsername = (value: string) => meets(username, value)

/** Whether the API would accept `value` as a password. */
export const validPassword = (value: string) => meets(password, value)

/** The password's shortest and longest lengths, in characters. */
export const passwordLength = { minimum: password.minLength, maximum: password.maxLength }
