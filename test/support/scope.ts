/**
 * What this test run covers. `TEST_SCOPE=fast` (`npm run test:fast`, the inner loop of
 * README.md "Development") runs the unit and in-process tests on SQLite only: no build is made,
 * so the tests that start the built process (`dist/`), drive a browser or need PostgreSQL are
 * skipped, each with this reason. `TEST_SCOPE=node-line` (what `.ci/run` gives `npm test` on the
 * Node.js lines other than 24) runs everything that depends on the Node.js line: the SQLite native
 * addon built for it, every started process, the command line, the HTTP stack; the PostgreSQL
 * tests (a JavaScript driver, the same SQL on every line), the browser tests (a browser of
 * their own) and the in-process HTTP suites (no socket) are skipped with their reason, as they run
 * on Node.js 24; a file holding nothing else is not loaded at all ({@link nodeLineLeftOutFiles}).
 * Unset, everything runs (`npm test`).
 */
export const fastScope = process.env.TEST_SCOPE === 'fast'

/** `TEST_SCOPE=node-line`: only what depends on the Node.js line (see {@link fastScope}). */
export const nodeLineScope = process.env.TEST_SCOPE === 'node-line'

/**
 * The test files `TEST_SCOPE=node-line` does not even load (scripts/run-tests.ts leaves them out),
 * because none of their tests would run there: loading a file only to skip it costs about as much
 * CPU as a small suite (the service's modules through tsx), 38 files on each of two Node.js lines.
 * They are the files whose every test is an in-process HTTP suite, a PostgreSQL test or a browser
 * test (skipped on those lines for the reasons below), and the documentation's examples and the
 * generated SDK, which check the README, docs/api.md and the API document, not the runtime. All of
 * them run on Node.js 24. A file listed here that does not exist stops the run.
 */
export const nodeLineLeftOutFiles: readonly string[] = [
  'test/auth/auth.test.ts',
  'test/http/api-document/api-document-wire.test.ts',
  'test/http/api-document/docs-page.test.ts',
  'test/http/api-document/openapi-generated.test.ts',
  'test/process/change-numbering.test.ts',
  'test/process/failover.test.ts',
  'test/process/pgbouncer.test.ts',
  'test/routes/api-tokens.test.ts',
  'test/routes/books/book-text.test.ts',
  'test/routes/books/books.test.ts',
  'test/routes/books/conditional.test.ts',
  'test/routes/books/history-stream.test.ts',
  'test/routes/books/history.test.ts',
  'test/routes/books/idempotency.test.ts',
  'test/routes/books/paging-stability.test.ts',
  'test/routes/books/paging.test.ts',
  'test/routes/books/query-nul.test.ts',
  'test/routes/books/search-bounded.test.ts',
  'test/routes/books/search-property.test.ts',
  'test/routes/books/search.test.ts',
  'test/routes/own-password.test.ts',
  'test/routes/users.test.ts',
  'test/routes/webhooks.test.ts',
  'test/storage/postgres/instances.test.ts',
  'test/storage/postgres/outage.test.ts',
  'test/storage/postgres/postgres-change-log.test.ts',
  'test/storage/postgres/postgres-change-numbering.test.ts',
  'test/storage/postgres/postgres-group-insert.test.ts',
  'test/storage/postgres/startup.test.ts',
  'test/storage/postgres/statement-bound.test.ts',
  'web/test/accessibility.test.ts',
  'web/test/api-tokens.test.ts',
  'web/test/history.test.ts',
  'web/test/journey.test.ts',
  'web/test/live.test.ts',
  'web/test/phone.test.ts',
  'web/test/polish.test.ts',
  'web/test/roles.test.ts',
  'web/test/transfer.test.ts',
  'web/test/webhooks.test.ts',
  'test/process/readme-examples.test.ts',
  'test/process/readme-wait-loop.test.ts',
  'test/process/readme-webhook-receiver.test.ts',
  'test/process/generated-sdk.test.ts'
]

/** Why a test that starts the real process (`dist/start.js`, `dist/book-service.js`) is skipped, or undefined when it runs. */
export const processSkipReason = fastScope ? 'TEST_SCOPE=fast: real-process test skipped (npm test runs it)' : undefined

/** Why a test that reads what the build makes (`dist/`, the page in `dist/web`) is skipped, or undefined when it runs. */
export const buildSkipReason = fastScope ? 'TEST_SCOPE=fast: reads the build (dist/), skipped (npm test builds first)' : undefined

/**
 * Why an in-process HTTP suite (`describeEachEngine`: Fastify's `inject`, no socket, the same
 * JavaScript on every line) is skipped by the scope, or undefined when the scope runs it. On the
 * other lines the routes are still served by the real processes of test/process and test/cli.
 */
export const inProcessScopeSkipReason = nodeLineScope ? 'TEST_SCOPE=node-line: in-process HTTP suite skipped (no socket, the same JavaScript; .ci/run runs it on Node.js 24)' : undefined

/** Why a PostgreSQL test is skipped by the scope, or undefined when the scope runs it. */
export const postgresScopeSkipReason = fastScope
  ? 'TEST_SCOPE=fast: PostgreSQL test skipped (npm test runs it)'
  : nodeLineScope ? 'TEST_SCOPE=node-line: PostgreSQL test skipped (its driver is JavaScript; .ci/run runs it on Node.js 24)' : undefined

/** Why a browser test is skipped by the scope, or undefined when the scope runs it. */
export const browserScopeSkipReason = fastScope
  ? 'TEST_SCOPE=fast: browser test skipped (npm test runs it)'
  : nodeLineScope ? 'TEST_SCOPE=node-line: browser test skipped (.ci/run runs it on Node.js 24)' : undefined
