import { BookServiceError } from '../../../../src/client/index.js'
import { strings } from '../../strings/index.js'

/**
 * What to tell an admin about a refused change of an account: the two 409s told apart by the
 * service's exact messages (`User already exists`, `Cannot remove the last admin`), 404, 400.
 * Undefined for any other failure: the general message of `ui/use-submit.ts` then applies.
 */
export function accountErrorMessage(error: unknown): string | undefined {
  if (error instanceof BookServiceError) {
    if (error.status === 409) return error.message === 'Cannot remove the last admin' ? strings.accounts.lastAdmin : strings.accounts.exists
    if (error.status === 404) return strings.accounts.notFound
    if (error.status === 400) return strings.accounts.invalid
  }
  return undefined
}
