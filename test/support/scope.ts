/**
 * What this test run covers. `TEST_SCOPE=fast` (`npm run test:fast`, the inner loop of
 * README.md "Development") runs the unit and in-process tests on SQLite only: no build is made,
 * so the tests that start the built process (`dist/`), drive a browser or need PostgreSQL are
 * skipped, each with this reason. `TEST_SCOPE=node-line` (what `.ci/run` gives `npm test` on the
 * Node.js lines other than 24) runs the files that exercise the runtime ({@link nodeLineFiles}):
 * the started process, the version gate, the SQLite addon, threads, cluster, fetch, the HTTP
 * stack; within them the PostgreSQL tests (a JavaScript driver, the same SQL on every line) and
 * the in-process HTTP suites (no socket) are skipped with their reason, as they run on Node.js 24.
 * Unset, everything runs (`npm test`).
 */
export const fastScope = process.env.TEST_SCOPE === 'fast'

/** `TEST_SCOPE=node-line`: only what depends on the Node.js line (see {@link fastScope}). */
export const nodeLineScope = process.env.TEST_SCOPE === 'node-line'

/**
 * The test files `TEST_SCOPE=node-line` runs (scripts/run-tests.ts loads no other): one for each
 * part of the Node.js runtime the service stands on, so each part is exercised on every supported
 * line. What the service decides in its own JavaScript (routes, accounts, search, history, the
 * feed's and webhooks' rules, durability, the command line's commands, the documentation's
 * examples) behaves the same on every line and is tested, with everything else, on Node.js 24
 * (`npm test` without a scope). The SQLite addon is one N-API build for every line, so its
 * durability is SQLite's and the operating system's, tested on 24. A new test file runs on
 * Node.js 24 only, unless it exercises a part of the runtime no file here does: then it belongs
 * here. A file listed here that does not exist stops the run.
 */
export const nodeLineFiles: readonly string[] = [
  // The started process: listening, serving, a graceful stop on SIGTERM.
  'test/process/server.test.ts',
  // The Node.js version gate, the re-run on the bundled Node.js, the module compile cache.
  'test/cli/runtime.test.ts',
  // The SQLite addon: loaded on this line, every migration's SQL (FTS5, triggers), its
  // connections in worker threads (the writer thread).
  'test/storage/schema/migrations.test.ts',
  'test/storage/sqlite/sqlite-writer-thread.test.ts',
  // node:cluster (WORKERS).
  'test/cli/workers/primary.test.ts',
  // fetch (undici), through the typed client.
  'test/client/client.test.ts',
  // The HTTP parser and sockets: the wire's edge cases, slow and abusive clients.
  'test/http/wire-edges.test.ts',
  'test/http/abusive-clients.test.ts',
  // The asynchronous log destination flushed on exit.
  'test/process/log-flush.test.ts'
]

/**
 * The test files `TEST_SCOPE=fast` does not load (scripts/run-tests.ts), besides test/process/ and
 * test/storage/postgres/: every test in them starts the built process, drives a browser or needs
 * PostgreSQL, so the scope would skip them all, and loading a file only to skip it costs about two
 * seconds of CPU (the service's modules through tsx). A file listed here that does not exist stops
 * the run; one that gains a test the fast scope would run belongs off this list.
 */
export const fastLeftOutFiles: readonly string[] = [
  'test/account/roles.test.ts',
  'test/auth/revocation.test.ts',
  'test/cli/commands/api-token.test.ts',
  'test/cli/commands/backup.test.ts',
  'test/cli/commands/transfer.test.ts',
  'test/cli/commands/watch.test.ts',
  'test/cli/commands/webhooks.test.ts',
  'test/cli/errors.test.ts',
  'test/cli/program.test.ts',
  'test/cli/workers/primary.test.ts',
  'test/client/client.test.ts',
  'test/client/webhooks.test.ts',
  'test/http/abusive-clients.test.ts',
  'test/http/api-document/api-document-responses.test.ts',
  'test/http/api-document/docs-page.test.ts',
  'test/http/errors/client-error.test.ts',
  'test/http/pipeline/connection-limits.test.ts',
  'test/routes/books/list-reads.test.ts',
  'test/storage/schema/compatibility.test.ts',
  'web/test/accessibility.test.ts',
  'web/test/api-tokens.test.ts',
  'web/test/history.test.ts',
  'web/test/journey.test.ts',
  'web/test/live.test.ts',
  'web/test/phone.test.ts',
  'web/test/polish.test.ts',
  'web/test/roles.test.ts',
  'web/test/transfer.test.ts',
  'web/test/webhooks.test.ts'
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
