/**
 * What this test run covers. `TEST_SCOPE=fast` (`npm run test:fast`, the inner loop of
 * README.md "Development") runs the unit and in-process tests on SQLite only: no build is made,
 * so the tests that start the built process (`dist/`), drive a browser or need PostgreSQL are
 * skipped, each with this reason. `TEST_SCOPE=node-line` (what `.ci/run` gives `npm test` on the
 * Node.js lines other than 24) runs everything that depends on the Node.js line: the SQLite native
 * addon built for it, every started process, the command line, the HTTP stack; the PostgreSQL
 * tests (a JavaScript driver, the same SQL on every line), the browser tests (a browser of
 * their own) and the in-process HTTP suites (no socket) are skipped with their reason, as they run
 * on Node.js 24. Unset, everything runs
 * (`npm test`).
 */
export const fastScope = process.env.TEST_SCOPE === 'fast'

/** `TEST_SCOPE=node-line`: only what depends on the Node.js line (see {@link fastScope}). */
export const nodeLineScope = process.env.TEST_SCOPE === 'node-line'

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
