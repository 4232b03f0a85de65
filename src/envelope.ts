import Type, { type TSchema } from 'typebox'

/**
 * The response envelope every response uses (spec: "Response envelope"):
 * `{ status: <HTTP status>, message: <text>, data: <payload or null> }`.
 *
 * @param data the JSON Schema of the `data` field for this response.
 * @returns the envelope's JSON Schema, used to serialize the response and in the API document.
 */
export function envelope<T extends TSchema>(data: T) {
  return Type.Object(
    {
      status: Type.Integer({ description: 'Equals the HTTP status code of the response.' }),
      message: Type.String({ description: 'Human-readable outcome text.' }),
      data
    },
    { additionalProperties: false }
  )
}

/** The envelope of every error: `data` is always null. */
export const ErrorEnvelope = envelope(Type.Null())

/** The envelope of successes without a payload (`DELETE`, health checks). */
export const EmptyEnvelope = envelope(Type.Null())

/** The exact message texts of the specification and decisions documents. */
export const Messages = {
  created: 'Book created successfully',
  listed: 'Books retrieved successfully',
  retrieved: 'Book retrieved successfully',
  updated: 'Book updated successfully',
  deleted: 'Book deleted successfully',
  loggedIn: 'Login successful',
  ok: 'OK',
  invalidInput: 'Invalid input',
  tokenRequired: 'Authorization token required',
  invalidToken: 'Invalid token',
  invalidCredentials: 'Invalid credentials',
  bookNotFound: 'Book not found',
  routeNotFound: 'Route not found',
  methodNotAllowed: 'Method not allowed',
  preconditionFailed: 'Precondition failed',
  payloadTooLarge: 'Payload too large',
  tooManyRequests: 'Too many requests',
  internalError: 'Internal server error',
  unavailable: 'Service unavailable',
  forbidden: 'Forbidden',
  usersListed: 'Users retrieved successfully',
  userCreated: 'User created successfully',
  userUpdated: 'User updated successfully',
  userDeleted: 'User deleted successfully',
  userExists: 'User already exists',
  userNotFound: 'User not found',
  lastAdmin: 'Cannot remove the last admin'
} as const

/** The message used for a status when nothing more specific applies (framework-made errors). */
export const defaultMessageFor: Record<number, string> = {
  400: 'Bad request',
  401: Messages.invalidToken,
  403: Messages.forbidden,
  404: Messages.routeNotFound,
  405: Messages.methodNotAllowed,
  408: 'Request timeout',
  412: Messages.preconditionFailed,
  413: Messages.payloadTooLarge,
  414: 'URI too long',
  415: 'Unsupported media type',
  429: Messages.tooManyRequests,
  431: 'Request header fields too large',
  500: Messages.internalError,
  503: Messages.unavailable
}

/**
 * An error the client caused or may be told about: rendered by the error handler as the
 * envelope `{ status, message, data: null }` with HTTP status `status`.
 */
export class HttpError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
    readonly headers: Record<string, string> = {}
  ) {
    super(message)
    this.name = 'HttpError'
  }
}
