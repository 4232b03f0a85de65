/**
 * An error the client caused or may be told about: rendered by the error handler
 * (src/http/errors/error-handler.ts) as the envelope `{ status, message, data: null }` with HTTP status
 * `statusCode` and the given headers.
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
