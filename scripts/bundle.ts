/**
 * Second step of `npm run build`, after `tsc`: replaces the three modules the entries load,
 * `dist/serve.js` (`npm start`, `book-service serve`), `dist/command-line.js` (`book-service …`)
 * and the SQLite writer thread, with esbuild bundles of the compiled service and its
 * dependencies. A start then reads a few files instead of ~960 modules (TypeBox alone is ~370):
 * about a quarter less wall and CPU time to the first answer (docs/benchmarks.md, "Cold start").
 *
 * What stays as `tsc` wrote it: `dist/server.js` and `dist/cli.js`, which import `runtime.js`
 * first (the Node.js version check, the compile cache) and then the bundle with `import()`; the
 * typed client (`dist/index.js`, `dist/client.js`) and every declaration file.
 *
 * Layout rules the bundled code relies on: every output sits directly in `dist/`, beside the
 * entries, so `new URL('../package.json', import.meta.url)` (the version) still names the
 * package's file and the write queue's `./writer-thread.js` names the bundled writer thread.
 * Modules loaded on demand (Kysely, node-postgres, prom-client) become chunks loaded only when
 * used, as before.
 *
 * Left out of the bundle, loaded from `node_modules` as usual: better-sqlite3 (a native addon),
 * pg-native (optional, not installed) and @fastify/swagger-ui (serves its own files from its
 * folder).
 */
import { readdirSync, rmSync } from 'node:fs'
import { build } from 'esbuild'

const DIST = new URL('../dist/', import.meta.url).pathname

// Chunks of an earlier build (their names are hashes of their content).
for (const file of readdirSync(DIST)) if (file.startsWith('chunk-')) rmSync(DIST + file)

await build({
  entryPoints: {
    serve: `${DIST}serve.js`,
    'command-line': `${DIST}command-line.js`,
    'writer-thread': `${DIST}storage/sqlite/writer-thread.js`
  },
  outdir: DIST,
  allowOverwrite: true,
  bundle: true,
  splitting: true,
  chunkNames: 'chunk-[hash]',
  format: 'esm',
  platform: 'node',
  target: 'node22',
  // Stack traces map to src/ with `node --enable-source-maps` (esbuild reads tsc's maps).
  sourcemap: true,
  external: ['better-sqlite3', 'pg-native', '@fastify/swagger-ui'],
  // CommonJS dependencies call `require` for Node's own modules; an ES module has none.
  banner: { js: "import { createRequire as bundleRequire } from 'node:module'; const require = bundleRequire(import.meta.url);" },
  logLevel: 'warning'
})
