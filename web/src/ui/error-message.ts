import { BookServiceError, NetworkError } from '../../../src/client/index.js'
import { strings } from '../strings/index.js'

/**
 * What to tell the person about a failed call, when nothing more specific applies: the network,
 * 403, 413, 503, or the service's own status and message.
 */
export function errorMessage(error: unknown): string {
  if (error instanceof NetworkError) return strings.errors.network
  if (error instanceof BookServiceError) {
    if (error.status === 403) return strings.errors.forbidden
    if (error.status === 413) return strings.errors.tooLarge
    if (error.status === 503) return strings.errors.unavailable
    return strings.errors.unexpected(error.status, error.message)
  }
  return strings.errors.unexpected(0, error instanceof Error ? error.message : String(error))
}
