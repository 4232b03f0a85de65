import { randomUUID } from 'node:crypto'
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify'
import type { DestinationStream } from 'pino'
import { createAuthHook } from './http/pipeline/auth-hook.js'
import type { PasswordSource } from './auth/credentials.js'
import { bootstrapFirstAdmin } from './auth/first-admin.js'
import { LOGIN_WINDOW_MS, LoginLimits } from './auth/login-limits.js'
import { bookRight } from './account/roles.js'
import { ApiTokenChecks } from './auth/api-tokens.js'
import { TokenRevocation } from './auth/revocation.js'
import { TokenGenerations } from './auth/token-generations.js'
import { createApiTokenSigner, createTokenSigner, createTokenVerifier } from './auth/tokens.js'
import { BODY_VALIDATION_OPTIONS } from './book/validation.js'
import { ChangeFeed } from './feed/change-feed.js'
import { tokenLeases } from './feed/token-lease.js'
import { retryDelaysMs, trustProxyOption, type Config } from './config.js'
import { apiDocument } from './http/api-document/openapi.js'
import { DOCUMENT_SCHEMAS } from './routes/document-schemas.js'
import { clientErrorHandler, trackAnswers } from './http/errors/client-error.js'
import { badUrlHandler, errorHandlerWith, notFoundHandler } from './http/errors/error-handler.js'
import { methodNotAllowed } from './http/errors/method-not-allowed.js'
import { connectionOptions, limitConnections, limitConnectionsPerAddress } from './http/pipeline/connection-limits.js'
import { corsOrigins, registerCors } from './http/pipeline/cors.js'
import { routeUnmetExpectations } from './http/pipeline/expectations.js'
import { readBodiesAsJson } from './http/pipeline/json-body.js'
import { HeavyReads } from './http/pipeline/heavy-reads.js'
import { registerMetrics } from './http/pipeline/metrics.js'
import { acceptEveryMethod, answerConnect } from './http/pipeline/methods.js'
import { RequestLog } from './http/pipeline/request-log.js'
import { registerRequestStart } from './http/pipeline/request-start.js'
import { enforceSendDeadline } from './http/pipeline/send-deadline.js'
import { routableUrl } from './http/pipeline/request-url.js'
import { serializerPerSchema } from './http/pipeline/response-serializers.js'
import { compileOnFirstUse } from './http/pipeline/request-validators.js'
import { apiTokensRoutes } from './routes/api-tokens.js'
import { booksRoutes } from './routes/books/index.js'
import { healthRoutes } from './routes/health.js'
import { loginRoute } from './routes/login.js'
import { usersRoutes } from './routes/users.js'
import { ownPasswordRoute } from './routes/own-password.js'
import { webPageRoutes } from './routes/web-page.js'
import { webhooksRoutes } from './routes/webhooks.js'
import { WebhookDispatcher } from './webhooks/dispatcher.js'
import type { Database } from './storage/contracts/database.js'
import { startRetention } from './storage/retention.js'

/** Largest request body accepted, in bytes (1 MiB); larger ones get 413. */
export const BODY_LIMIT_BYTES = 1024 * 1024

/** Secrets shorter than this many bytes are accepted with a warning. */
const RECOMMENDED_SECRET_BYTES = 32

/** The configuration the app runs with: {@link Config} with the secret and password resolved. */
export type AppConfig = Config & { SECRET_TOKEN: string; AUTH_PASSWORD: string }

/** What {@link buildApp} needs. */
export interface AppOptions {
  config: AppConfig
  /** The opened database; the app closes it when it closes. */
  database: Database
  /** Overrides the pino logger options (tests pass a stream to capture the log). */
  logger?: FastifyServerOptions['logger']
  /** Where `config.AUTH_PASSWORD` came from, as the log says when it creates the first admin (default: the setting). */
  passwordFrom?: PasswordSource
  /** Where the default logger writes its lines (default: standard output, synchronously); `serve` passes its asynchronous destination (`cli/log-destination.ts`). */
  logStream?: DestinationStream
}

/**
 * Builds the service (not listening): every route of the contract (docs/contract.md), the envelope
 * on every response, auth, logging. Tests call it in-process; `src/cli/start-up.ts` listens.
 *
 * The registration order is part of the contract: the router's options (every method accepted,
 * request targets made routable, an `Expect` Node will not meet routed like any request), the
 * connection bounds (`connection-limits.ts`, `send-deadline.ts`), one synchronous `onRequest`
 * hook for the request id, the security headers, the single-`Host` check and the `Expect` check
 * (`request-start.ts`), CORS, the API document, metrics, then the routes (books behind the
 * bearer hook, `/users`, `/tokens`, `/webhooks`, login, health, the web page) and last the 405 answers. The
 * bearer hook (`http/pipeline/auth-hook.ts`) sits on each route's own options, where the API
 * document's transform sees and documents it. A book request then runs: the bearer hook (401,
 * then 403, before the body is read); the body read as JSON (`json-body.ts`) and validated
 * against the book schema with the result only attached; the handler (`routes/books/handlers.ts`;
 * PUT and DELETE first run `loadForWrite`: 404, then `If-Match` 412, then the body 400); the
 * answer built by `envelopeOf` and serialized by the route's response schema, or an `HttpError`
 * rendered by the error handler in the same envelope (a storage outage: 503).
 *
 * @returns the ready Fastify instance; `close()` stops it and closes the database.
 */
export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const { config, database } = options
  const app = Fastify({
    logger: options.logger ?? {
      level: config.LOG_LEVEL,
      redact: { paths: ['req.headers.authorization', '*.password', '*.token', 'password', 'token'], censor: '[redacted]' },
      ...(options.logStream ? { stream: options.logStream } : {})
    },
    logController: new RequestLog(),
    genReqId: () => randomUUID(),
    bodyLimit: BODY_LIMIT_BYTES,
    ...connectionOptions(config),
    trustProxy: trustProxyOption(config.TRUST_PROXY),
    return503OnClosing: false,
    clientErrorHandler,
    // The route schemas are fixed and every one is exercised by the tests: checking them against
    // JSON Schema's meta-schema would compile that meta-schema on every start (~40 ms).
    // Each route's request schemas are compiled on its first request (request-validators.ts).
    ajv: { customOptions: { ...BODY_VALIDATION_OPTIONS, validateSchema: false }, onCreate: compileOnFirstUse },
    schemaController: serializerPerSchema,
    frameworkErrors: badUrlHandler,
    rewriteUrl: routableUrl,
    // An id segment of any length is an id like any other (docs/contract.md "Ids": 404 after auth),
    // never the router's 400; the request line is bounded by MAX_HEADER_SIZE anyway.
    routerOptions: { maxParamLength: Number.MAX_SAFE_INTEGER }
  })
  acceptEveryMethod(app)
  answerConnect(app)
  routeUnmetExpectations(app)
  trackAnswers(app.server)

  readBodiesAsJson(app)

  limitConnectionsPerAddress(app.server, config)
  limitConnections(app.server, config)
  enforceSendDeadline(app, config.SEND_TIMEOUT)
  app.setErrorHandler(errorHandlerWith(database))
  app.setNotFoundHandler(notFoundHandler)
  // First: the request id, the single-Host check, then the security headers (one hook).
  registerRequestStart(app)
  app.addHook('onClose', async () => database.close())

  const registerMethodNotAllowed = methodNotAllowed(app)

  // AUTH_USERNAME / AUTH_PASSWORD become the first admin account while no admin exists.
  // Started now and awaited once the app is ready: the password hash (scrypt, ~0.2 s) runs on
  // libuv's thread pool while this thread registers the routes and compiles their schemas.
  const firstAdmin = bootstrapFirstAdmin(
    database.accounts,
    { username: config.AUTH_USERNAME, password: config.AUTH_PASSWORD, passwordFrom: options.passwordFrom ?? 'AUTH_PASSWORD' },
    app.log
  )
  firstAdmin.catch(() => {}) // handled by the await below; not an unhandled rejection meanwhile

  if (!config.AUTH_ENABLED) {
    app.log.warn('AUTH_ENABLED=false: the book routes are NOT protected; anyone who can reach the service can change the data')
  }
  if (Buffer.byteLength(config.SECRET_TOKEN) < RECOMMENDED_SECRET_BYTES) {
    app.log.warn(`SECRET_TOKEN is shorter than ${RECOMMENDED_SECRET_BYTES} bytes; use a longer random secret`)
  }

  // Before the routes, so they apply to every route: CORS, the API document, metrics.
  const origins = corsOrigins(config.CORS_ORIGINS)
  if (origins) await registerCors(app, origins)
  await apiDocument(app, DOCUMENT_SCHEMAS)
  // One reader of the change log per process, shared by every stream of GET /books/changes.
  const feed = new ChangeFeed(database.changes, {
      maxSubscribers: config.FEED_MAX_SUBSCRIBERS,
      heartbeatSeconds: config.FEED_HEARTBEAT,
      maxPerSubject: config.FEED_MAX_STREAMS_PER_SUBJECT,
      maxAgeSeconds: config.FEED_MAX_STREAM_AGE
    }, app.log, database.readReplicas)
  // Before the server stops waiting for answers in progress: the streams would hold it open.
  app.addHook('preClose', (done) => {
    feed.close()
    done()
  })
  // One webhook dispatcher per process; the one holding the lease in the database sends (docs/webhooks.md).
  const dispatcher = new WebhookDispatcher(database.webhooks, database.changes, {
    retryDelaysMs: retryDelaysMs(config.WEBHOOK_RETRY_SCHEDULE),
    timeoutMs: config.WEBHOOK_TIMEOUT * 1000,
    allowPrivate: config.WEBHOOK_ALLOW_PRIVATE,
    log: app.log
  })
  // Before the database closes (onClose): attempts in flight are cut, what succeeded is recorded.
  app.addHook('preClose', async () => dispatcher.close())
  if (config.METRICS_ENABLED) await registerMetrics(app, feed, database.changes, dispatcher, database.readReplicas)

  const verify = createTokenVerifier(config.SECRET_TOKEN)
  const generations = new TokenGenerations(database.accounts)
  // Login tokens by their account's generation, API tokens by their row (auth/revocation.ts).
  const revocation = new TokenRevocation(
    generations,
    new ApiTokenChecks(database.apiTokens, (error) => app.log.warn({ err: error }, 'an API token\'s last use could not be recorded'))
  )
  await app.register(booksRoutes, {
    books: database.books,
    readReplicas: database.readReplicas,
    authenticate: config.AUTH_ENABLED ? createAuthHook(verify, bookRight, revocation) : undefined,
    changes: {
      feed,
      leaseOf: config.AUTH_ENABLED ? tokenLeases(verify, revocation) : () => ({}),
      bufferBytes: config.FEED_BUFFER_BYTES
    },
    heavyReads: new HeavyReads(config)
  })
  // Account management always needs an admin token, even with AUTH_ENABLED=false.
  await app.register(usersRoutes, { accounts: database.accounts, authenticate: createAuthHook(verify, 'admin', revocation), revocation })
  // API tokens: any signed-in role, always behind the bearer hook (docs/api-tokens.md).
  await app.register(apiTokensRoutes, {
    accounts: database.accounts,
    apiTokens: database.apiTokens,
    authenticate: createAuthHook(verify, 'read', revocation),
    revocation,
    sign: createApiTokenSigner(config.SECRET_TOKEN)
  })
  const loginLimits = new LoginLimits(database.loginAttempts, {
    attemptsPerAddress: config.LOGIN_RATE_LIMIT,
    failuresPerAccount: config.LOGIN_ACCOUNT_FAILURE_LIMIT
  })
  // The expired Idempotency-Key answers and the ended login counters, trimmed while the app runs
  // (storage/retention.ts), from when it is ready until it closes.
  let stopRetention: (() => void) | undefined
  app.addHook('onReady', async () => {
    stopRetention = startRetention(database, LOGIN_WINDOW_MS, app.log, config.WEBHOOK_DELIVERY_MAX_AGE)
  })
  app.addHook('preClose', async () => stopRetention?.())
  // Any role changes its own password (docs/accounts.md "Accounts and roles"); wrong ones count as failed logins.
  // A password change revokes login tokens only: the account's API tokens keep working.
  await app.register(ownPasswordRoute, { accounts: database.accounts, authenticate: createAuthHook(verify, 'read', revocation), limits: loginLimits, generations })
  await app.register(webhooksRoutes, {
    webhooks: database.webhooks,
    changes: database.changes,
    authenticate: createAuthHook(verify, 'admin', revocation),
    allowPrivate: config.WEBHOOK_ALLOW_PRIVATE,
    onChange: () => dispatcher.refresh()
  })
  await app.register(loginRoute, {
    accounts: database.accounts,
    ttlSeconds: config.TOKEN_TTL,
    attemptsPerMinute: config.LOGIN_RATE_LIMIT,
    limits: loginLimits,
    sign: createTokenSigner(config.SECRET_TOKEN, config.TOKEN_TTL)
  })
  await app.register(healthRoutes, { database })
  if (config.UI_ENABLED) await app.register(webPageRoutes)
  await app.register(registerMethodNotAllowed)
  await app.ready()
  dispatcher.start()
  await firstAdmin
  return app
}
