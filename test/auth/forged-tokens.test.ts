import assert from 'node:assert/strict'
import { createHmac, generateKeyPairSync, sign as cryptoSign, constants, type KeyObject } from 'node:crypto'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, before, describe, test } from 'node:test'
import { createSigner } from 'fast-jwt'
import type { FastifyInstance } from 'fastify'
import { TEST_PASSWORD, TEST_SECRET, authHeaders, buildTestApp, signToken } from '../support/app.js'

/** Forged tokens (docs/reliability.md): every one must be answered 401 `Invalid token` and run no handler. */

const b64 = (value: string | Buffer) => Buffer.from(value).toString('base64url')
const json = (value: unknown) => b64(JSON.stringify(value))
const now = () => Math.floor(Date.now() / 1000)

/** A JWS compact token over `header` and `payload`, its signature made by `signer` over `h.p`. */
function compact(header: object, payload: object, signer: (input: string) => Buffer | string): string {
  const input = `${json(header)}.${json(payload)}`
  const signature = signer(input)
  return `${input}.${typeof signature === 'string' ? signature : b64(signature)}`
}
const hmac = (algorithm: 'sha256' | 'sha384' | 'sha512', key: string | Buffer) => (input: string) =>
  createHmac(algorithm, key).update(input).digest()

const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 })
const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' })
const ed = generateKeyPairSync('ed25519')
const pem = (key: KeyObject) => key.export({ type: key.type === 'private' ? 'pkcs8' : 'spki', format: 'pem' }).toString()
const rsaPublicPem = pem(rsa.publicKey)

/** The local server a `jku`/`x5u` header points at: it must never be contacted. */
let lure: Server
let lureHits = 0
let lureUrl = ''

/** Every forged token, by name. Built lazily (the lure server's URL is known only once it listens). */
function forgeries(): Array<[string, string]> {
  const claims = { sub: 'admin' }
  const valid = signToken(claims)
  const [header, payload, signature] = valid.split('.') as [string, string, string]
  const list: Array<[string, string]> = []
  for (const alg of ['none', 'None', 'NONE', 'nOnE']) {
    list.push([`alg ${alg}, empty signature`, compact({ alg, typ: 'JWT' }, claims, () => '')])
    list.push([`alg ${alg}, no signature segment`, `${json({ alg })}.${json(claims)}`])
    list.push([`alg ${alg}, HMAC signature kept`, compact({ alg }, claims, hmac('sha256', TEST_SECRET))])
  }
  list.push(['RS256 (attacker key)', createSigner({ key: pem(rsa.privateKey), algorithm: 'RS256' })(claims)])
  list.push(['PS256 (attacker key)', compact({ alg: 'PS256' }, claims, (input) =>
    cryptoSign('sha256', Buffer.from(input), { key: rsa.privateKey, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: 32 }))])
  list.push(['ES256 (attacker key)', compact({ alg: 'ES256' }, claims, (input) =>
    cryptoSign('sha256', Buffer.from(input), { key: ec.privateKey, dsaEncoding: 'ieee-p1363' }))])
  list.push(['EdDSA (attacker key)', compact({ alg: 'EdDSA' }, claims, (input) => cryptoSign(null, Buffer.from(input), ed.privateKey))])
  list.push(['HS256 wrong secret', signToken(claims, { key: 'not-the-secret' })])
  list.push(['HS384 wrong secret', signToken(claims, { key: 'not-the-secret', algorithm: 'HS384' })])
  list.push(['HS512 wrong secret', signToken(claims, { key: 'not-the-secret', algorithm: 'HS512' })])
  list.push(['HS256 with an empty secret', compact({ alg: 'HS256' }, claims, hmac('sha256', ''))])
  list.push(['algorithm confusion: HS256 keyed with the RSA public key PEM', compact({ alg: 'HS256', typ: 'JWT' }, claims, hmac('sha256', rsaPublicPem))])
  list.push(['algorithm confusion: RS256 header over an HMAC signature', compact({ alg: 'RS256' }, claims, hmac('sha256', TEST_SECRET))])
  list.push(['exp 31 s past (beyond the 30 s leeway)', signToken({ exp: now() - 31 })])
  list.push(['exp an hour past', signToken({ exp: now() - 3600 })])
  list.push(['nbf 60 s ahead (beyond the leeway)', signToken({ nbf: now() + 60 })])
  list.push(['nbf a day ahead', signToken({ nbf: now() + 86_400 })])
  list.push(['valid signature, payload changed', `${header}.${json({ sub: 'root' })}.${signature}`])
  list.push(['valid signature, header changed to HS512', `${json({ alg: 'HS512', typ: 'JWT' })}.${payload}.${signature}`])
  list.push(['valid signature, a byte of payload flipped', `${header}.${payload.slice(0, -2)}${payload.at(-2) === 'A' ? 'B' : 'A'}${payload.at(-1)}.${signature}`])
  list.push(['signature of another token', `${header}.${payload}.${signToken({ sub: 'other' }).split('.')[2]}`])
  list.push(['truncated signature', valid.slice(0, -1)])
  list.push(['truncated to two segments', `${header}.${payload}`])
  list.push(['truncated to header only', header])
  list.push(['signature removed, dot kept', `${header}.${payload}.`])
  list.push(['extra segment', `${valid}.${signature}`])
  list.push(['extra empty segment', `${valid}.`])
  list.push(['five segments (JWE shape)', `${header}.${payload}.${signature}.x.y`])
  list.push(['non-base64url character in signature (+)', `${header}.${payload}.${signature.slice(0, 10)}+${signature.slice(11)}`])
  list.push(['non-base64url character in signature (/)', `${header}.${payload}.${signature.slice(0, 10)}/${signature.slice(11)}`])
  list.push(['padding on the signature', `${valid}=`])
  list.push(['non-base64url character in payload (*)', `${header}.*${payload}.${signature}`])
  list.push(['white space inside the token', `${header}. ${payload}.${signature}`])
  list.push(['non-ASCII characters', `${header}.${payload}.${signature}é`])
  list.push(['payload not JSON, signed with the secret', `${header}.${b64('not json')}.${b64(hmac('sha256', TEST_SECRET)(`${header}.${b64('not json')}`))}`])
  list.push(['header not JSON', `${b64('{alg:HS256')}.${payload}.${signature}`])
  list.push(['jku to a local server, attacker RS256 key', createSigner({ key: pem(rsa.privateKey), algorithm: 'RS256', header: { alg: 'RS256', jku: `${lureUrl}/jwks.json`, kid: 'k1' } })(claims)])
  list.push(['x5u to a local server, attacker RS256 key', createSigner({ key: pem(rsa.privateKey), algorithm: 'RS256', header: { alg: 'RS256', x5u: `${lureUrl}/cert.pem` } })(claims)])
  list.push(['kid as a URL, wrong HMAC secret', signToken(claims, { key: 'attacker' }).replace(/^[^.]+/, json({ alg: 'HS256', kid: `${lureUrl}/key` }))])
  list.push(['jwk embedded in the header (attacker key)', createSigner({ key: pem(rsa.privateKey), algorithm: 'RS256', header: { alg: 'RS256', jwk: rsa.publicKey.export({ format: 'jwk' }) } })(claims)])
  list.push(['kid path traversal, HMAC over an empty key', compact({ alg: 'HS256', kid: '../../../../dev/null' }, claims, hmac('sha256', ''))])
  list.push(['a token of 100 KB', signToken({ padding: 'x'.repeat(100 * 1024) }, { key: 'attacker' })])
  list.push(['a valid-looking 100 KB token of junk', `${header}.${'A'.repeat(100 * 1024)}.${signature}`])
  return list
}

describe('forged tokens', () => {
  let app: FastifyInstance
  before(async () => {
    lure = createServer((_request, response) => {
      lureHits++
      response.end(JSON.stringify({ keys: [rsa.publicKey.export({ format: 'jwk' })] }))
    })
    await new Promise<void>((resolve) => lure.listen(0, '127.0.0.1', resolve))
    lureUrl = `http://127.0.0.1:${(lure.address() as AddressInfo).port}`
    app = await buildTestApp()
  })
  after(async () => {
    await app.close()
    await new Promise((resolve) => lure.close(resolve))
  })

  test('every forged token is 401 Invalid token on every book and account route, and changes nothing', async (t) => {
    const routes = [
      { method: 'GET', url: '/books' },
      { method: 'POST', url: '/book', payload: { title: 'forged', author: 'x', year: 1 } },
      { method: 'GET', url: '/book/1' },
      { method: 'PUT', url: '/book/1', payload: { title: 'forged' } },
      { method: 'DELETE', url: '/book/1' },
      { method: 'GET', url: '/users' },
      { method: 'POST', url: '/users', payload: { username: 'forged', password: 'forged password', role: 'admin' } },
      { method: 'PUT', url: '/users/admin', payload: { password: 'forged password', role: 'reader' } },
      { method: 'DELETE', url: '/users/admin' }
    ] as const
    const accountsBefore = (await app.inject({ url: '/users', headers: authHeaders() })).json().data
    const seed = await app.inject({ method: 'POST', url: '/book', headers: authHeaders(), payload: { title: 'T', author: 'A', year: 1 } })
    assert.equal(seed.statusCode, 201)
    const list = forgeries()
    let attempts = 0
    for (const [name, token] of list) {
      for (const header of [token, `Bearer ${token}`]) {
        for (const route of routes) {
          const response = await app.inject({ ...route, headers: { authorization: header } })
          attempts++
          assert.equal(response.statusCode, 401, `${name}: ${route.method} ${route.url} -> ${response.body}`)
          assert.deepEqual(response.json(), { status: 401, message: 'Invalid token', data: null }, name)
        }
      }
    }
    const books = (await app.inject({ url: '/books', headers: authHeaders() })).json().data
    assert.deepEqual(books, [{ id: seed.json().data.id, title: 'T', author: 'A', year: 1 }])
    assert.deepEqual((await app.inject({ url: '/users', headers: authHeaders() })).json().data, accountsBefore)
    assert.equal(lureHits, 0, 'a jku/x5u/kid URL was fetched')
    t.diagnostic(`forged tokens: ${list.length} kinds, ${attempts} requests, all 401 Invalid token`)
  })

  test('a correctly signed token with a made-up or stale account generation is 401 Invalid token on every route', async () => {
    const login = await app.inject({ method: 'POST', url: '/login', payload: { username: 'admin', password: TEST_PASSWORD } })
    const genuine = JSON.parse(Buffer.from(login.json().data.token.split('.')[1], 'base64url').toString())
    for (const claims of [
      { ...genuine, book_service_generation: 'made-up' },
      { ...genuine, sub: 'nobody' },
      { ...genuine, book_service_generation: 7 },
      { sub: 'admin', role: 'reader', book_service_generation: genuine.book_service_generation.toUpperCase() }
    ]) {
      for (const [method, url] of [['GET', '/books'], ['DELETE', '/book/1'], ['GET', '/users'], ['DELETE', '/users/admin']] as const) {
        const response = await app.inject({ method, url, headers: authHeaders(signToken(claims)) })
        assert.deepEqual(response.json(), { status: 401, message: 'Invalid token', data: null }, `${JSON.stringify(claims)} ${url}`)
      }
    }
    assert.equal((await app.inject({ url: '/users', headers: authHeaders(login.json().data.token) })).statusCode, 200)
  })

  test('a verified (cached) token is refused once its exp plus the leeway has passed', async () => {
    // exp 28 s past (whole seconds): valid for 1 to 2 s more under the 30 s leeway, so the first
    // request is inside it even on a slow machine; after 3.1 s it is past for certain.
    const token = signToken({ exp: now() - 28 })
    assert.equal((await app.inject({ url: '/books', headers: { authorization: token } })).statusCode, 200)
    await new Promise((resolve) => setTimeout(resolve, 3100))
    const later = await app.inject({ url: '/books', headers: { authorization: token } })
    assert.equal(later.statusCode, 401, 'the verification cache outlived the token')
    assert.deepEqual(later.json(), { status: 401, message: 'Invalid token', data: null })
  })

  test('the leeway and header fields of a genuine token: within 30 s accepted, jku/kid ignored not fetched', async () => {
    for (const [name, token] of [
      ['exp 10 s past', signToken({ exp: now() - 10 })],
      ['nbf 10 s ahead', signToken({ nbf: now() + 10 })],
      ['jku/kid/x5u headers with the right secret', createSigner({ key: TEST_SECRET, algorithm: 'HS256', header: { alg: 'HS256', jku: `${lureUrl}/jwks`, kid: `${lureUrl}/k`, x5u: `${lureUrl}/c` } })({})]
    ] as const) {
      const response = await app.inject({ url: '/books', headers: { authorization: `Bearer ${token}` } })
      assert.equal(response.statusCode, 200, `${name}: ${response.body}`)
    }
    assert.equal(lureHits, 0)
  })
})

describe('login', () => {
  test('wrong credentials are rate-limited per client: 429 Too many requests', async () => {
    const app = await buildTestApp({ LOGIN_RATE_LIMIT: 3 })
    try {
      const attempt = (remoteAddress: string, password: string) =>
        app.inject({ method: 'POST', url: '/login', remoteAddress, payload: { username: 'admin', password } })
      for (let i = 0; i < 3; i++) assert.equal((await attempt('10.0.0.1', `guess-${i}`)).statusCode, 401)
      const limited = await attempt('10.0.0.1', 'guess-4')
      assert.equal(limited.statusCode, 429)
      assert.deepEqual(limited.json(), { status: 429, message: 'Too many requests', data: null })
      // Even the right password is refused while the client is limited: guessing cannot go on.
      assert.equal((await attempt('10.0.0.1', TEST_PASSWORD)).statusCode, 429)
      // Another client is not affected.
      assert.equal((await attempt('10.0.0.2', TEST_PASSWORD)).statusCode, 200)
    } finally {
      await app.close()
    }
  })

  test('a wrong username and a wrong password get the same answer', async () => {
    const app = await buildTestApp({ LOGIN_RATE_LIMIT: 1000 })
    try {
      const answer = async (username: string, password: string) => {
        const response = await app.inject({ method: 'POST', url: '/login', payload: { username, password } })
        const headers = { ...response.headers }
        for (const varying of ['date', 'x-request-id', 'x-ratelimit-remaining', 'x-ratelimit-reset']) delete headers[varying]
        return { status: response.statusCode, body: response.body, headers }
      }
      const wrongUser = await answer('nobody', TEST_PASSWORD)
      const wrongPassword = await answer('admin', 'wrong')
      const bothWrong = await answer('nobody', 'wrong')
      assert.equal(wrongUser.status, 401)
      assert.deepEqual(JSON.parse(wrongUser.body), { status: 401, message: 'Invalid credentials', data: null })
      assert.deepEqual(wrongPassword, wrongUser)
      assert.deepEqual(bothWrong, wrongUser)
    } finally {
      await app.close()
    }
  })
})
