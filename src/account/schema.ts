import Type, { type Static } from 'typebox'

/**
 * The account resource (docs/accounts.md "Accounts and roles"), and the one place its rules live: these
 * schemas validate the /users bodies (and the `book-service user` arguments), serialize responses
 * and describe the API.
 */

/** The roles: `reader` reads books, `editor` also writes them, `admin` also manages accounts. */
export const ROLES = ['reader', 'editor', 'admin'] as const

/** One of {@link ROLES}. */
export type Role = (typeof ROLES)[number]

/** True when `value` is one of {@link ROLES}. */
export function isRole(value: unknown): value is Role {
  return typeof value === 'string' && (ROLES as readonly string[]).includes(value)
}

/** Shortest and longest password accepted for an account, in code points. */
export const PASSWORD_LENGTH = { min: 12, max: 1024 } as const

/**
 * What a username may not hold besides `/`, one pattern for the API, `book-service user` and the
 * web page (docs/accounts.md "Accounts and roles"): control characters (Unicode category Cc), format
 * characters (Cf: zero-width spaces and joiners, bidirectional overrides such as U+202E, the BOM),
 * line and paragraph separators (Zl, Zp) and the other code points Unicode says to display as
 * nothing (Default_Ignorable_Code_Point: variation selectors, Hangul fillers…), so that no two
 * usernames look the same while differing only by what cannot be seen (`ad\u200bmin`, `\u202enimda`).
 * Lone surrogates are not well-formed Unicode. A JavaScript pattern with the `u` flag.
 */
export const USERNAME_FORBIDDEN = '[\\p{Cc}\\p{Cf}\\p{Zl}\\p{Zp}\\p{Default_Ignorable_Code_Point}/\\ud800-\\udfff]'

/** The username's rule in words: the API document, `book-service user` and the page say it so. */
export const USERNAME_RULE =
  '1 to 64 characters, no white space at either end, no `/`, no control, format or other invisible character (Unicode Cc, Cf, Zl, Zp, default ignorable)'

/**
 * A username: 1 to 64 code points, no leading or trailing white space, nothing of
 * {@link USERNAME_FORBIDDEN} (`/` is a path segment of /users/{username}), well-formed Unicode.
 * Unique ignoring case.
 */
export const Username = Type.String({
  minLength: 1,
  maxLength: 64,
  pattern: '^\\S(?:.*\\S)?$',
  not: { pattern: USERNAME_FORBIDDEN },
  description: `${USERNAME_RULE}; unique ignoring case and look-alikes (the same UTS #39 confusable skeleton as a taken one: 409).`
})

/** A new password: 12 to 1024 code points, well-formed Unicode without NUL. */
export const Password = Type.String({
  minLength: PASSWORD_LENGTH.min,
  maxLength: PASSWORD_LENGTH.max,
  not: { pattern: '[\\u0000\\ud800-\\udfff]' },
  description: '12 to 1024 characters. Stored only as an scrypt hash.'
})

/** A role: `reader`, `editor` or `admin`. */
export const RoleName = Type.Union(
  [Type.Literal(ROLES[0]), Type.Literal(ROLES[1]), Type.Literal(ROLES[2])],
  { description: '`reader`: GET /books, GET /book/{id}. `editor`: the five book operations. `admin`: editor plus /users.' }
)

/** An account as every response shows it: never its password or hash. Times are ISO 8601 UTC strings. */
export const Account = Type.Object(
  {
    username: Type.String({ description: 'As given when created (lookups ignore case).' }),
    role: RoleName,
    created_at: Type.String({ format: 'date-time', description: 'When it was created: ISO 8601, UTC.' }),
    updated_at: Type.String({ format: 'date-time', description: 'When its password or role last changed: ISO 8601, UTC.' })
  },
  {
    additionalProperties: false,
    examples: [{ username: 'alice', role: 'editor', created_at: '2026-01-02T03:04:05.000Z', updated_at: '2026-01-02T03:04:05.000Z' }]
  }
)
export type Account = Static<typeof Account>

/** Body of POST /users. Unknown fields are ignored. */
export const AccountInput = Type.Object(
  { username: Username, password: Password, role: RoleName },
  { additionalProperties: true, examples: [{ username: 'alice', password: 'a long passphrase', role: 'editor' }] }
)

/** Body of PUT /users/{username}: a new password, a new role, or both; `{}` changes nothing. */
export const AccountChangeInput = Type.Object(
  { password: Type.Optional(Password), role: Type.Optional(RoleName) },
  { additionalProperties: true, examples: [{ role: 'reader' }] }
)

/** The unique key of a username: NFC, then lower case (so `Alice` and `alice` are one account). */
export function usernameKey(username: string): string {
  return username.normalize('NFC').toLowerCase()
}

/** Path parameters of the /users/{username} routes. */
export const AccountParams = Type.Object({
  username: Type.String({ description: 'The username, any case.', examples: ['alice'] })
})
