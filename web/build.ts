/**
 * Builds the web page (`npm run build`, after the service's own build) into `dist/web`:
 * `index.html`, and under `assets/` the script, its lazily loaded parts, the styles and the icon,
 * each named with a hash of its content, each with a gzip copy beside it (`.gz`, served by
 * `src/routes/web-page.ts` to clients that take gzip).
 *
 * The page's source is TypeScript with Preact's JSX, bundled by esbuild. The schema modules of
 * the service (`src/book/schema.ts`, `src/account/schema.ts`, `src/account/api-token-schema.ts`)
 * are evaluated here, in Node, and given to the bundle as plain JSON (their few functions, such as `isRole`, as their own source): the page checks fields with the very rules the API validates
 * with, without shipping TypeBox. The page's validators of those schemas (`web/src/book/book-validators.ts`,
 * `web/src/accounts/account-validators.ts`) are compiled here by Ajv into its standalone code,
 * which replaces those modules in the bundle: Ajv's own checks, with no Ajv and no `eval` shipped.
 */
import { createHash } from 'node:crypto'
import { mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { constants, gzipSync } from 'node:zlib'
import { build, type Plugin } from 'esbuild'
import * as apiTokenSchema from '../src/account/api-token-schema.js'
import * as accountSchema from '../src/account/schema.js'
import * as bookSchema from '../src/book/schema.js'
import { Ajv } from 'ajv'
import standalone from 'ajv/dist/standalone/index.js'
import * as accountValidators from './src/accounts/account-validators.js'
import * as bookValidators from './src/book/book-validators.js'
import { strings } from './src/strings/index.js'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const WEB = join(ROOT, 'web')
/** Where the service looks for the page (src/routes/web-page.ts). */
export const WEB_OUTPUT = join(ROOT, 'dist', 'web')
const ASSETS = join(WEB_OUTPUT, 'assets')

/** The schema modules the page imports, by source path, with their values as evaluated here. */
const SCHEMA_MODULES = new Map<string, Record<string, unknown>>([
  [join(ROOT, 'src', 'book', 'schema.ts'), bookSchema],
  [join(ROOT, 'src', 'account', 'schema.ts'), accountSchema],
  [join(ROOT, 'src', 'account', 'api-token-schema.ts'), apiTokenSchema]
])

/**
 * One export of a schema module as JavaScript source: a value as JSON, a function (such as
 * `isRole`) as its own source text, which may use the module's other exports by name.
 *
 * @throws when a function is not a plain named function declaration (its text would not compile).
 */
function moduleExport(name: string, value: unknown): string {
  if (typeof value !== 'function') return `export const ${name} = ${JSON.stringify(value)};`
  const source = String(value)
  if (!source.startsWith(`function ${name}(`)) throw new Error(`web/build.ts: the schema export ${name} is not a function declaration`)
  return `export ${source}`
}

/** Replaces each schema module with its exports as JSON (TypeBox schemas are plain JSON Schema objects). */
const schemasAsJson: Plugin = {
  name: 'schemas-as-json',
  setup(setup) {
    setup.onResolve({ filter: /schema\.js$/ }, (args) => {
      const path = resolve(args.resolveDir, args.path).replace(/\.js$/, '.ts')
      return SCHEMA_MODULES.has(path) ? { path, namespace: 'schema-json' } : undefined
    })
    setup.onLoad({ filter: /.*/, namespace: 'schema-json' }, (args) => ({
      contents: Object.entries(SCHEMA_MODULES.get(args.path)!).map(([name, value]) => moduleExport(name, value)).join('\n'),
      loader: 'js'
    }))
  }
}

/** The page's validator modules, by source path, with the schemas each compiles (by export name). */
const VALIDATOR_MODULES = new Map<string, Record<string, object>>([
  [join(WEB, 'src', 'book', 'book-validators.ts'), bookValidators.SCHEMAS],
  [join(WEB, 'src', 'accounts', 'account-validators.ts'), accountValidators.SCHEMAS]
])

/** Ajv's standalone ES module of `schemas`: one export a validator, by the same names as the module it replaces. */
function standaloneValidators(schemas: Record<string, object>): string {
  const ajv = new Ajv({ ...bookValidators.PAGE_VALIDATION_OPTIONS, code: { source: true, esm: true } })
  for (const [name, schema] of Object.entries(schemas)) ajv.addSchema(schema, name)
  // The CommonJS module is the function, and its own `default` too: the typed name is `default`.
  return standalone.default(ajv, Object.fromEntries(Object.keys(schemas).map((name) => [name, name])))
}

/** Replaces each validator module with its validators compiled by Ajv ({@link standaloneValidators}). */
const standaloneValidatorModules: Plugin = {
  name: 'standalone-validators',
  setup(setup) {
    setup.onResolve({ filter: /-validators\.js$/ }, (args) => {
      const path = resolve(args.resolveDir, args.path).replace(/\.js$/, '.ts')
      return VALIDATOR_MODULES.has(path) ? { path, namespace: 'standalone-validators' } : undefined
    })
    setup.onLoad({ filter: /.*/, namespace: 'standalone-validators' }, (args) => ({
      contents: standaloneValidators(VALIDATOR_MODULES.get(args.path)!),
      loader: 'js',
      resolveDir: ROOT
    }))
  }
}

/** `name-<first 10 hex of the content's SHA-256>.ext`, the naming of every asset. */
function hashedName(name: string, extension: string, content: Buffer | string): string {
  return `${name}-${createHash('sha256').update(content).digest('hex').slice(0, 10)}.${extension}`
}

/** Every file under `folder`, recursively. */
function filesUnder(folder: string): string[] {
  return readdirSync(folder).flatMap((name) => {
    const path = join(folder, name)
    return statSync(path).isDirectory() ? filesUnder(path) : [path]
  })
}

/**
 * Builds the page into {@link WEB_OUTPUT}, replacing what was there.
 *
 * @returns the URL paths of the page's script, styles and icon, as `index.html` names them.
 * @throws when Ajv cannot compile a validator, or esbuild fails.
 */
export async function buildWebPage(): Promise<{ script: string; style: string; icon: string }> {
  rmSync(WEB_OUTPUT, { recursive: true, force: true })
  mkdirSync(ASSETS, { recursive: true })

  const result = await build({
    entryPoints: { app: join(WEB, 'src', 'main.tsx') },
    outdir: ASSETS,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'browser',
    target: ['chrome111', 'edge111', 'firefox114', 'safari16.4'],
    minify: true,
    entryNames: '[name]-[hash]',
    chunkNames: '[name]-[hash]',
    assetNames: '[name]-[hash]',
    jsx: 'automatic',
    jsxImportSource: 'preact',
    tsconfig: join(WEB, 'tsconfig.json'),
    metafile: true,
    plugins: [standaloneValidatorModules, schemasAsJson],
    logLevel: 'warning'
  })
  const entry = Object.entries(result.metafile.outputs).find(([, output]) => output.entryPoint?.endsWith('web/src/main.tsx'))
  if (!entry || !entry[1].cssBundle) throw new Error('esbuild wrote no script or no styles for web/src/main.tsx')
  const assetPath = (output: string) => `/assets/${output.split('/').at(-1)}`

  const icon = readFileSync(join(WEB, 'src', 'icon.svg'))
  const iconName = hashedName('icon', 'svg', icon)
  writeFileSync(join(ASSETS, iconName), icon)

  const paths = { script: assetPath(entry[0]), style: assetPath(entry[1].cssBundle), icon: `/assets/${iconName}` }
  const html = readFileSync(join(WEB, 'index.html'), 'utf8')
    .replace('<html lang="en">', `<html lang="${strings.locale}">`)
    .replace(/<title>[^<]*<\/title>/, `<title>${strings.appName}</title>`)
    .replace(/<noscript>[^<]*<\/noscript>/, `<noscript>${strings.noScript}</noscript>`)
    .replace('{{script}}', paths.script)
    .replace('{{style}}', paths.style)
    .replace('{{icon}}', paths.icon)
  writeFileSync(join(WEB_OUTPUT, 'index.html'), html)

  for (const file of filesUnder(WEB_OUTPUT)) {
    writeFileSync(`${file}.gz`, gzipSync(readFileSync(file), { level: constants.Z_BEST_COMPRESSION }))
  }
  return paths
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await buildWebPage()
}
