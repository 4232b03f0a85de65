import { createHash } from 'node:crypto'
import { existsSync, readFileSync, readdirSync } from 'node:fs'
import { dirname, extname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'

/** Where the page's assets are served; their names carry a hash of their content. */
export const WEB_ASSETS_PATH = '/assets'

/** One file of the built page, read once: its bytes, their gzip (made by the build) and its headers. */
interface WebFile {
  body: Buffer
  gzip?: Buffer
  contentType: string
  etag: string
  cacheControl: string
}

/** Options of the {@link webPageRoutes} plugin. */
export interface WebPageOptions {
  /** The folder the build wrote the page to (default: `dist/web` of this package). */
  folder?: string
}

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.map': 'application/json; charset=utf-8'
}

/** Hashed names never change content: a year, and `immutable` so a reload does not revalidate them. */
const HASHED_CACHE = 'public, max-age=31536000, immutable'
/** The HTML names the current assets: revalidated (ETag) on every load, so a new build shows at once. */
const HTML_CACHE = 'no-cache'

/**
 * `dist/web` of the package this module belongs to: the first folder above it that holds a
 * `package.json`. The same whether the module runs from `src/` (tests, through tsx), from `tsc`'s
 * `dist/` tree or from the bundle directly in `dist/`.
 */
function defaultFolder(): string {
  let folder = dirname(fileURLToPath(import.meta.url))
  while (!existsSync(join(folder, 'package.json'))) {
    const parent = dirname(folder)
    if (parent === folder) break
    folder = parent
  }
  return join(folder, 'dist', 'web')
}

/** Reads `path` and its `.gz` twin (when the build made one) as a {@link WebFile}. */
function readWebFile(path: string, cacheControl: string): WebFile {
  const body = readFileSync(path)
  const gzipPath = `${path}.gz`
  return {
    body,
    gzip: existsSync(gzipPath) ? readFileSync(gzipPath) : undefined,
    contentType: CONTENT_TYPES[extname(path)] ?? 'application/octet-stream',
    etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`,
    cacheControl
  }
}

/**
 * Whether `accept` (the request's `Accept-Encoding`) takes gzip: named (or `*`) without `q=0`
 * (RFC 9110 §12.5.3).
 */
export function acceptsGzip(accept: string | undefined): boolean {
  if (!accept) return false
  let star: boolean | undefined
  for (const entry of accept.toLowerCase().split(',')) {
    const [coding, ...parameters] = entry.split(';').map((part) => part.trim())
    const refused = parameters.some((parameter) => /^q=0(\.0{0,3})?$/.test(parameter))
    if (coding === 'gzip' || coding === 'x-gzip') return !refused
    if (coding === '*') star = !refused
  }
  return star ?? false
}

/** Whether `ifNoneMatch` names `etag` (or is `*`); weak tags compare weakly, as `If-None-Match` does. */
function matches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false
  return ifNoneMatch.split(',').some((tag) => {
    const trimmed = tag.trim()
    return trimmed === '*' || trimmed.replace(/^W\//, '') === etag
  })
}

/** Sends `file`: 304 when the client holds it, else its bytes, gzipped when the client takes gzip. */
function sendFile(file: WebFile, request: FastifyRequest, reply: FastifyReply) {
  reply.header('cache-control', file.cacheControl).header('etag', file.etag).header('vary', 'accept-encoding')
  if (matches(request.headers['if-none-match'], file.etag)) return reply.code(304).send()
  reply.header('content-type', file.contentType)
  if (file.gzip && acceptsGzip(request.headers['accept-encoding'])) {
    return reply.header('content-encoding', 'gzip').send(file.gzip)
  }
  return reply.send(file.body)
}

/**
 * The web page for the people who keep the collection (docs/web-page.md "Web page"; `docs/contract.md`
 * "Other representations"): `GET /` answers the page's HTML (`no-cache`, with an `ETag`), and
 * `GET /assets/{name}` its scripts, styles and icon, whose names carry a hash of their content
 * (cached for a year, `immutable`). The build (`npm run build`, `web/build.ts`) writes them to
 * `dist/web` with a gzip copy of each, served when the client accepts gzip. Neither route is
 * behind auth: the page signs in itself through `POST /login`. An unknown asset name is
 * 404 `Route not found`, like any unknown path. Without a built page (`dist/web` missing) the
 * routes are not added and the log says so.
 */
export async function webPageRoutes(app: FastifyInstance, options: WebPageOptions = {}): Promise<void> {
  const folder = options.folder ?? defaultFolder()
  const indexPath = join(folder, 'index.html')
  if (!existsSync(indexPath)) {
    app.log.warn({ folder }, 'the web page is not built (run npm run build); GET / answers 404')
    return
  }
  const index = readWebFile(indexPath, HTML_CACHE)
  const assets = new Map<string, WebFile>()
  const assetFolder = join(folder, 'assets')
  for (const name of existsSync(assetFolder) ? readdirSync(assetFolder) : []) {
    if (!name.endsWith('.gz')) assets.set(name, readWebFile(join(assetFolder, name), HASHED_CACHE))
  }

  // Not operations of the API: kept out of the API document.
  app.get('/', { schema: { hide: true } }, async function webPage(request, reply) {
    // The router sends the asterisk-form target (`GET *`, RFC 9112 §3.2.4: for OPTIONS only) here
    // too; it names no resource, as before the page existed.
    if (request.raw.url?.startsWith('*')) return reply.callNotFound()
    return sendFile(index, request, reply)
  })
  app.get<{ Params: { name: string } }>(`${WEB_ASSETS_PATH}/:name`, { schema: { hide: true } }, async function webAsset(request, reply) {
    const file = assets.get(request.params.name)
    if (!file) return reply.callNotFound()
    return sendFile(file, request, reply)
  })
}
