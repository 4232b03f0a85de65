import type { FastifyRequest } from 'fastify'
import { tokenSubject } from '../../http/pipeline/auth-hook.js'
import type { ChangeContext } from '../../storage/contracts/change-log.js'

/**
 * The {@link ChangeContext} of a book write made by `request` (docs/change-feed.md "Change log"): the actor is
 * the token's `sub` claim (a string as is, any other JSON value as its JSON text, null when the
 * token has none or authentication is off), the request id is Fastify's `request.id` (the
 * `x-request-id` the response carries).
 */
export function changeContextOf(request: FastifyRequest): ChangeContext {
  const subject = tokenSubject(request)
  const actor = subject === undefined ? null : typeof subject === 'string' ? subject : JSON.stringify(subject)
  return { actor, requestId: request.id }
}
