import type { IncomingMessage } from 'node:http'

/**
 * Fastify's `rewriteUrl`: a request path whose percent-encoding does not decode (`/book/%`,
 * `/book/12%zz`, `/book/%ff`) is routed with each `%` taken literally (as `%25`), instead of
 * being refused by the router before authentication. So `/book/12%zz` reaches the `/book/{id}`
 * routes with the id `12%zz`: 401 without a token, then 404 `Book not found` like any other id
 * that is not one (docs/contract.md "Ids"); an unknown path stays 404 `Route not found`. The query
 * string is left as it is (its parameters are checked by the routes that read it).
 *
 * @returns the URL to route: `request.url` itself unless its path fails to decode.
 */
export function routableUrl(request: IncomingMessage): string {
  const url = request.url ?? '/'
  const end = url.search(/[?#]/)
  const path = end === -1 ? url : url.slice(0, end)
  if (!path.includes('%')) return url
  try {
    decodeURI(path)
    return url
  } catch {
    return path.replaceAll('%', '%25') + (end === -1 ? '' : url.slice(end))
  }
}
