/**
 * The service answered with an error: `status` is the HTTP status and `message` the service's
 * exact text (`Book not found`, `Invalid token`, `Precondition failed` for an `If-Match` that no
 * longer holds, …). A response that is not the service's JSON envelope (a proxy's error page, say)
 * is reported with its status and `Unexpected response`.
 */
export class BookServiceError extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** The `x-request-id` of the response, to find it in the service's log. */
    readonly requestId?: string
  ) {
    super(message)
    this.name = 'BookServiceError'
  }
}

/**
 * No answer came (the service could not be reached, or the connection broke before the answer was
 * read): nothing is known about the outcome. `cause` is fetch's own error.
 */
export class NetworkError extends Error {
  override name = 'NetworkError'
}
