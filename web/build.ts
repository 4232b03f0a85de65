/**
 * Builds the web page (`npm run build`, after the service's own build) into `dist/web`:
 * `index.html`, and under `assets/` the script, its lazily loaded parts, the styles and the icon,
 * each named with a hash of its content, each with a gzip copy beside it (`.gz`, served by
 * `src/routes/web-page.ts` to clients that take gzip).
 *
 * The page's source is TypeScript with Preact's JSX, bundled by esbuild. The schema modules of
 * the service (`src/book/schema.ts`, `src/account/schema.ts`, `src/account/api-token-schema.ts`)
 * are evaluated here, in Node, and given to the bundle as plain JSON (their few functions, such as `isRole`, as their own source): the page checks fields with the very rules the API validates
 * with, without shipping TypeBox. The build fails when the book schema uses a keyword the page's
 * checks do not know (`web/src/book/rules.ts`).
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
import { assertKnownKeywords } from './src/book/rules.js'
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
 * @throws when the book schema has a keyword the page cannot check, or esbuild fails.
 */
export async function buildWebPage(): Promise<{ script: string; style: string; icon: string }> {
  assertKnownKeywords(bookSchema.BookInput, 'BookInput')
  assertKnownKeywords(bookSchema.BookPatch, 'BookPatch')
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
    plugins: [schemasAsJson],
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
