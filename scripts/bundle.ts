/**
 * Second step of `npm run build`, after `tsc`: replaces the two entries, `dist/start.js`
 * (`npm start`) and `dist/book-service.js` (`book-service …`), the SQLite writer and search reader
 * threads and the webhook sender thread with esbuild bundles of the compiled service and its dependencies. A start then reads a few files
 * instead of ~960 modules (TypeBox alone is ~370): about a quarter less wall and CPU time to the
 * first answer (docs/benchmarks.md, "Cold start").
 *
 * Each entry stays what its source says: `cli/runtime.js` first (the Node.js version check, the
 * compile cache), then the rest of the service with `import()`, which the bundle keeps as a chunk
 * loaded only then, so the cache is on before that chunk is compiled. What stays as `tsc` wrote
 * it: the typed client (`dist/client/index.js`, the package entry) and every declaration file.
 *
 * Layout rules the bundled code relies on: every output sits directly in `dist/`, beside the
 * entries, so `new URL('../package.json', import.meta.url)` (the version) still names the
 * package's file, the write queue's `./sqlite-writer-thread.js` names the bundled writer thread,
 * the search reader's `./sqlite-reader-thread.js` the bundled reader thread, and the dispatcher's
 * `./sender-thread.js` the bundled sender thread.
 * Modules loaded on demand (Kysely, node-postgres, prom-client) become chunks loaded only when
 * used, as in the source.
 *
 * Left out of the bundle, loaded from `node_modules` as usual: better-sqlite3 (a native addon)
 * and pg-native (optional, not installed). Dependencies that read files beside their code
 * (@fastify/swagger-ui's page) are bundled with `__dirname` still naming their folder there.
 */
import { readFileSync, readdirSync, rmSync } from 'node:fs'
import { build, type Plugin } from 'esbuild'

const DIST = new URL('../dist/', import.meta.url).pathname

// Chunks of an earlier build (their names are hashes of their content).
for (const file of readdirSync(DIST)) if (file.startsWith('chunk-')) rmSync(DIST + file)

/**
 * Keeps `__dirname` and `__filename` meaning the package's own folder and file for dependencies
 * that read files beside their code (@fastify/swagger-ui's page, pino's worker): each such module
 * gets both as locals, found at run time where Node would find the package from `dist/`
 * (`packageFolder`, defined by the banner), so a hoisted `node_modules` works too. A package
 * nested inside another's `node_modules` could resolve to another copy: the build refuses it.
 */
const packageFolders: Plugin = {
  name: 'package-folders',
  setup(build) {
    build.onLoad({ filter: /[\\/]node_modules[\\/].*\.c?js$/ }, (args) => {
      const source = readFileSync(args.path, 'utf8')
      if (!/\b__(dirname|filename)\b/.test(source)) return undefined
      const inModules = args.path.split(/[\\/]node_modules[\\/]/)
      const segments = inModules.at(-1)!.split(/[\\/]/)
      const nameLength = segments[0]!.startsWith('@') ? 2 : 1
      if (inModules.length > 2) {
        return { errors: [{ text: `${args.path} uses __dirname inside a nested node_modules: make its package external` }] }
      }
      const name = JSON.stringify(segments.slice(0, nameLength).join('/'))
      const folder = JSON.stringify(segments.slice(nameLength, -1).join('/'))
      const file = JSON.stringify(segments.at(-1))
      const locals =
        `var __dirname = require('node:path').join(packageFolder(${name}), ${folder}), ` +
        `__filename = require('node:path').join(__dirname, ${file});`
      return { contents: locals + source, loader: 'js' }
    })
  }
}

/**
 * Top of every output file. CommonJS dependencies call `require` for Node's own modules, and an
 * ES module has none; `packageFolder(name)` is the folder Node's lookup finds package `name` in.
 */
const BANNER = `import { createRequire as bundleRequire } from 'node:module';
import { existsSync as bundleExists } from 'node:fs';
const require = bundleRequire(import.meta.url);
const packageFolder = (name) => {
  for (const modules of require.resolve.paths(name) ?? []) {
    const folder = modules + '/' + name;
    if (bundleExists(folder + '/package.json')) return folder;
  }
  throw new Error('package ' + name + ' not found from ' + import.meta.dirname);
};`

await build({
  entryPoints: {
    start: `${DIST}start.js`,
    'book-service': `${DIST}book-service.js`,
    'sqlite-writer-thread': `${DIST}storage/sqlite/sqlite-writer-thread.js`,
    'sqlite-reader-thread': `${DIST}storage/sqlite/sqlite-reader-thread.js`,
    'sender-thread': `${DIST}webhooks/sender-thread.js`
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
  // Without comments and indentation: V8 keeps each loaded file's text for as long as the process
  // runs, and one comment outside Latin-1 (a dependency's en dash) makes it keep a whole 2 MB chunk
  // as two bytes per character. Names stay, so a stack trace without the maps still names its functions.
  minifyWhitespace: true,
  external: ['better-sqlite3', 'pg-native'],
  plugins: [packageFolders],
  banner: { js: BANNER },
  logLevel: 'warning'
})
