import type { FastifyInstance, RouteOptions } from 'fastify'
import { errorEnvelope } from '../envelope.js'
import { Messages } from '../messages.js'

/**
 * Collects the methods of every route as it is added, and returns the plugin that, registered
 * last, answers the other methods on each known path with 405 `Method not allowed` and an
 * `Allow` header: every method the router knows (all of Node's, see `acceptEveryMethod`), so
 * TRACE, PROPFIND, QUERY or CONNECT get 405 too. These answers are routes of their own, so they
 * carry no authentication.
 */
export function methodNotAllowed(app: FastifyInstance) {
  const methodsByUrl = new Map<string, Set<string>>()
  app.addHook('onRoute', (route: RouteOptions) => {
    const methods = methodsByUrl.get(route.url) ?? new Set<string>()
    for (const method of [route.method].flat()) methods.add(method.toUpperCase())
    methodsByUrl.set(route.url, methods)
  })
  return async function methodNotAllowedRoutes(instance: FastifyInstance) {
    const everyMethod = instance.supportedMethods
    for (const [url, methods] of [...methodsByUrl]) {
      // `*` is the CORS preflight route (OPTIONS on any path): other methods there stay 404.
      if (url === '*') continue
      // Routes a plugin adds without telling onRoute (e.g. the `/docs/` twin of `/docs`) count too.
      for (const method of everyMethod) if (instance.hasRoute({ url, method })) methods.add(method)
      if (methods.has('GET')) methods.add('HEAD')
      const allow = [...methods].sort().join(', ')
      const missing = everyMethod.filter((method) => !methods.has(method))
      if (missing.length === 0) continue
      instance.route({
        method: [...missing],
        url,
        exposeHeadRoute: false,
        schema: { hide: true }, // not operations: kept out of the API document
        handler: async (_request, reply) =>
          reply.code(405).header('allow', allow).send(errorEnvelope(405, Messages.methodNotAllowed))
      })
    }
  }
}
