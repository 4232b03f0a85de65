/** The exact message texts of the specification and decisions documents (one place for all). */
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
