import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { connect, type AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Writable } from 'node:stream'
import { after, before, describe, test } from 'node:test'
import { gunzipSync } from 'node:zlib'
import Fastify, { type FastifyInstance } from 'fastify'
import { acceptsGzip, webPageRoutes } from '../../src/routes/web-page.js'
import { buildTestApp } from '../support/app.js'
import { buildSkipReason } from '../support/scope.js'

/**
 * The web page's routes in-process (`npm test` builds the page into dist/web first): what `/`
 * and its assets answer, their caching and compression, and `UI_ENABLED=false`.
 */
const notFound = { status: 404, message: 'Route not found', data: null }

describe('GET / and /assets/{name}', { skip: buildSkipReason }, () => {
  let app: FastifyInstance
  let html: string
  let script: string
  let style: string

  before(async () => {
    app = await buildTestApp()
    html = (await app.inject({ method: 'GET', url: '/' })).body
    script = html.match(/<script type="module" src="([^"]+)"/)![1]!
    style = html.match(/<link rel="stylesheet" href="([^"]+)"/)![1]!
  })
  after(async () => app.close())

  test('/ is the page: HTML, revalidated on each load, under the service-wide CSP', async () => {
    const response = await app.inject({ method: 'GET', url: '/' })
    assert.equal(response.statusCode, 200)
    assert.equal(response.headers['content-type'], 'text/html; charset=utf-8')
    assert.equal(response.headers['cache-control'], 'no-cache')
    assert.match(String(response.headers.etag), /^"[A-Za-z0-9_-]+"$/)
    assert.match(String(response.headers['content-security-policy']), /script-src 'self'/)
    assert.match(String(response.headers['content-security-policy']), /script-src-attr 'none'/)
    assert.match(response.body, /^<!doctype html>/)
    assert.match(script, /^\/assets\/app-[A-Z0-9]+\.js$/)
    assert.match(style, /^\/assets\/app-[A-Z0-9]+\.css$/)
    // Nothing inline for the CSP to refuse: no inline script, no on…= attribute.
    assert.doesNotMatch(response.body, /<script(?![^>]*\bsrc=)[^>]*>/)
    assert.doesNotMatch(response.body, /\son[a-z]+=/i)
  })

  test('the page answers 304 to the ETag it gave', async () => {
    const first = await app.inject({ method: 'GET', url: '/' })
    const again = await app.inject({ method: 'GET', url: '/', headers: { 'if-none-match': String(first.headers.etag) } })
    assert.equal(again.statusCode, 304)
    assert.equal(again.body, '')
    assert.equal(again.headers.etag, first.headers.etag)
    const other = await app.inject({ method: 'GET', url: '/', headers: { 'if-none-match': '"another"' } })
    assert.equal(other.statusCode, 200)
  })

  test('assets have their content types and a year of immutable cache', async () => {
    for (const [path, type] of [
      [script, 'text/javascript; charset=utf-8'],
      [style, 'text/css; charset=utf-8']
    ] as const) {
      const response = await app.inject({ method: 'GET', url: path })
      assert.equal(response.statusCode, 200, path)
      assert.equal(response.headers['content-type'], type)
      assert.equal(response.headers['cache-control'], 'public, max-age=31536000, immutable')
      assert.ok(response.body.length > 0)
    }
    const icon = html.match(/<link rel="icon" href="([^"]+)"/)![1]!
    assert.equal((await app.inject({ method: 'GET', url: icon })).headers['content-type'], 'image/svg+xml')
  })

  test('gzip when the client takes it, the same bytes once unzipped; Vary says so', async () => {
    for (const url of ['/', script, style]) {
      const plain = await app.inject({ method: 'GET', url })
      const zipped = await app.inject({ method: 'GET', url, headers: { 'accept-encoding': 'gzip, deflate, br' } })
      assert.equal(zipped.headers['content-encoding'], 'gzip', url)
      assert.equal(zipped.headers.vary, 'accept-encoding')
      assert.ok(zipped.rawPayload.length < plain.rawPayload.length, url)
      assert.deepEqual(gunzipSync(zipped.rawPayload), plain.rawPayload)
      assert.equal(plain.headers['content-encoding'], undefined)
      const refused = await app.inject({ method: 'GET', url, headers: { 'accept-encoding': 'gzip;q=0, identity' } })
      assert.equal(refused.headers['content-encoding'], undefined)
    }
  })

  test('HEAD answers the headers only; other methods 405 with Allow', async () => {
    const head = await app.inject({ method: 'HEAD', url: '/' })
    assert.equal(head.statusCode, 200)
    assert.equal(head.body, '')
    for (const url of ['/', script]) {
      const response = await app.inject({ method: 'POST', url })
      assert.equal(response.statusCode, 405)
      assert.equal(response.headers.allow, 'GET, HEAD')
      assert.deepEqual(response.json(), { status: 405, message: 'Method not allowed', data: null })
    }
  })

  test('an unknown asset, or a path out of the folder, is 404 Route not found', async () => {
    for (const url of ['/assets/app-NOPE.js', '/assets/..%2F..%2Fpackage.json', '/assets/', '/index.html', '/assets/app.js.gz']) {
      const response = await app.inject({ method: 'GET', url })
      assert.equal(response.statusCode, 404, url)
      assert.deepEqual(response.json(), notFound)
    }
  })

  test('on the wire: / and its absolute form are the page; the asterisk form is not', async () => {
    const wire = await buildTestApp()
    await wire.listen({ port: 0, host: '127.0.0.1' })
    const { port } = wire.server.address() as AddressInfo
    const statusLine = (target: string) =>
      new Promise<string>((resolve, reject) => {
        const socket = connect(port, '127.0.0.1', () => socket.write(`GET ${target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`))
        let text = ''
        socket.on('data', (chunk) => (text += String(chunk)))
        socket.on('error', reject)
        socket.on('close', () => resolve(`${text.split('\r\n')[0]} ${/content-type: ([^\r]*)/i.exec(text)?.[1]}`))
      })
    try {
      assert.equal(await statusLine('/'), 'HTTP/1.1 200 OK text/html; charset=utf-8')
      assert.equal(await statusLine('http://x'), 'HTTP/1.1 200 OK text/html; charset=utf-8')
      for (const target of ['*', '*?x']) assert.equal(await statusLine(target), 'HTTP/1.1 404 Not Found application/json; charset=utf-8', target)
    } finally {
      await wire.close()
    }
  })

  test('neither route is in the API document', async () => {
    const document = (await app.inject({ method: 'GET', url: '/openapi.json' })).json() as { paths: Record<string, unknown> }
    assert.equal(document.paths['/'], undefined)
    assert.equal(Object.keys(document.paths).some((path) => path.startsWith('/assets')), false)
  })
})

describe('UI_ENABLED=false', () => {
  test('/ and the assets answer 404 Route not found, as any unknown path', async () => {
    const app = await buildTestApp({ UI_ENABLED: false })
    try {
      for (const url of ['/', '/assets/app.js']) {
        const response = await app.inject({ method: 'GET', url })
        assert.equal(response.statusCode, 404, url)
        assert.deepEqual(response.json(), notFound)
      }
    } finally {
      await app.close()
    }
  })
})

describe('a service whose page is not built', () => {
  test('/ is 404 and the log says how to build it', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'book-service-web-'))
    let log = ''
    const app = Fastify({ logger: { level: 'warn', stream: new Writable({ write: (chunk, _encoding, done) => ((log += String(chunk)), done()) }) } })
    try {
      await app.register(webPageRoutes, { folder })
      assert.equal((await app.inject({ method: 'GET', url: '/' })).statusCode, 404)
      assert.match(log, /the web page is not built \(run npm run build\)/)
    } finally {
      await app.close()
      rmSync(folder, { recursive: true, force: true })
    }
  })
})

describe('acceptsGzip', () => {
  test('reads Accept-Encoding as RFC 9110 does', () => {
    assert.equal(acceptsGzip(undefined), false)
    assert.equal(acceptsGzip(''), false)
    assert.equal(acceptsGzip('gzip'), true)
    assert.equal(acceptsGzip('GZIP'), true)
    assert.equal(acceptsGzip('deflate, gzip;q=0.5'), true)
    assert.equal(acceptsGzip('br'), false)
    assert.equal(acceptsGzip('gzip;q=0'), false)
    assert.equal(acceptsGzip('gzip; q=0.000'), false)
    assert.equal(acceptsGzip('*'), true)
    assert.equal(acceptsGzip('*;q=0'), false)
    assert.equal(acceptsGzip('*, gzip;q=0'), false)
    assert.equal(acceptsGzip('x-gzip'), true)
  })
})
