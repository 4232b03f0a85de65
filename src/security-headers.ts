import helmet from '@fastify/helmet'
import type { FastifyInstance } from 'fastify'

/**
 * Adds basic security headers to every response (call it before the routes are added), with
 * @fastify/helmet's defaults: `Content-Security-Policy`, `X-Content-Type-Options: nosniff`,
 * `X-Frame-Options: SAMEORIGIN`, `Referrer-Policy: no-referrer`, `Cross-Origin-*-Policy`, … The
 * CSP allows only this origin's own scripts, which is all the bundled docs page at /docs uses.
 * Left out on purpose: `upgrade-insecure-requests` (the service speaks plain HTTP, so the docs page
 * would break when opened by address) and `Strict-Transport-Security` (set it at the TLS proxy).
 */
export async function registerSecurityHeaders(app: FastifyInstance): Promise<void> {
  await app.register(helmet, {
    contentSecurityPolicy: { directives: { upgradeInsecureRequests: null } },
    strictTransportSecurity: false
  })
}
