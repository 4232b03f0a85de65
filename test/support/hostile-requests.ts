import fc from 'fast-check'
import { signToken } from './app.js'

/**
 * The generated hostile requests of the bad-input properties (test/http/bad-input.test.ts):
 * fast-check arbitraries of bodies (valid, malformed, deep, huge, invalid UTF-8, prototype
 * pollution), ids, `Authorization` values, content types and whole requests.
 */

/** One generated request, as `app.inject` takes it. */
export interface Generated {
  method: string
  url: string
  headers: Record<string, string>
  payload?: string | Buffer
}

const SAFE = Number.MAX_SAFE_INTEGER


const edgeNumber = fc.constantFrom(
  SAFE, SAFE + 1, SAFE + 2, -SAFE, -SAFE - 1, 2 ** 63, -(2 ** 63), 1e308, -1e308, Number.MIN_VALUE, -0, 0.1, 9999, 10000, -9999, -10000, 9999.0000001
)
/** Numbers as JSON text, including ones JavaScript cannot hold exactly. */
const numberText = fc.oneof(
  edgeNumber.map(String),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map(String),
  fc.constantFrom('9007199254740993', '-9007199254740993', '1e400', '-1e400', '1E3', '2020.0', '2.02e3', '-0', '0e0', '00', '1_000', '0x10', 'NaN', 'Infinity')
)
const text = fc.oneof(
  { weight: 1, arbitrary: fc.string() },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme' }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary' }) },
  {
    weight: 3,
    arbitrary: fc.constantFrom('', ' ', '\u00a0', '\u2028', '\u0000', 'a\u0000b', '😀'.repeat(500), '😀'.repeat(501), 'e\u0301'.repeat(300), '\ud800', '\udfff')
  },
  { weight: 1, arbitrary: fc.integer({ min: 0, max: 700 }).map((n) => 'x'.repeat(n)) }
)
/** A JSON string literal, sometimes with escapes a JSON encoder would not make (lone surrogates). */
const stringText = fc.oneof(
  text.map((value) => JSON.stringify(value)),
  fc.constantFrom('"\\ud800"', '"\\udc00x"', '"\\u0000"', '"\\x41"', '"tab\there"', '"unterminated')
)
const anyValueText = fc.oneof(fc.jsonValue().map((value) => JSON.stringify(value)), numberText, stringText)
const fieldText = fc.oneof({ weight: 3, arbitrary: stringText }, { weight: 1, arbitrary: numberText }, { weight: 1, arbitrary: anyValueText })
const keyText = fc.oneof(
  fc.constantFrom('"title"', '"author"', '"year"', '"id"', '"__proto__"', '"constructor"', '"prototype"', '"toString"', '"hasOwnProperty"', '"\\u005f_proto__"'),
  fc.string().map((value) => JSON.stringify(value))
)
const pollution = fc.constantFrom(
  '{"__proto__":{"polluted":1},"title":"t","author":"a","year":1}',
  '{"constructor":{"prototype":{"polluted":1}},"title":"t","author":"a","year":1}',
  '{"title":"t","author":"a","year":1,"__proto__":{"polluted":1,"title":"x"}}',
  '{"\\u005f_proto__":{"polluted":1},"title":"t","author":"a","year":1}',
  '{"a":{"__proto__":{"polluted":1}},"b":[{"constructor":{"prototype":{"polluted":1}}}]}',
  '{"__proto__":null,"title":"t","author":"a","year":1}',
  '{"title":"t","author":"a","year":1,"toString":1,"valueOf":"x","hasOwnProperty":null}'
)
/** A JSON object text with `fields` (each any JSON text, or absent) and up to `extras` other keys mixed in. */
function objectText(fields: Record<string, fc.Arbitrary<string>>, extras: number): fc.Arbitrary<string> {
  return fc
    .record({ ...fields, extra: fc.array(fc.tuple(keyText, anyValueText), { maxLength: extras }) }, { requiredKeys: [] })
    .map(({ extra, ...present }) => {
      const members = Object.entries(present).map(([key, value]) => `"${key}":${value as string}`)
      for (const [key, value] of (extra as Array<[string, string]> | undefined) ?? []) members.splice(Math.floor(members.length / 2), 0, `${key}:${value}`)
      return `{${members.join(',')}}`
    })
}
/** An object body shaped like a book, each field any JSON text (or absent), extra keys mixed in. */
const bookish = objectText(
  { title: fieldText, author: fieldText, year: fc.oneof(numberText, fieldText, fc.integer({ min: -12000, max: 12000 }).map(String)) },
  3
)
/** An object body shaped like an account (POST/PUT /users), each field any JSON text, a valid one now and then, or absent. */
export const accountish = objectText(
  {
    username: fc.oneof(fieldText, fc.constantFrom('"admin"', '"ADMIN"', '"seeded"', '"new-user"', '"a/b"', '" x"', `"${'u'.repeat(65)}"`)),
    password: fc.oneof(fieldText, fc.constantFrom('"a long enough passphrase"', '"short"', '"\\u0000 twelve chars"', `"${'p'.repeat(1025)}"`)),
    role: fc.oneof(fieldText, fc.constantFrom('"reader"', '"editor"', '"admin"', '"root"', '"Admin"', 'null'))
  },
  2
)
const deep = fc.tuple(fc.integer({ min: 1, max: 20_000 }), fc.constantFrom('[', '{"title":')).map(([depth, open]) =>
  open === '[' ? `${'['.repeat(depth)}${']'.repeat(depth)}` : `${open.repeat(depth)}1${'}'.repeat(depth)}`
)
const huge = fc
  .constantFrom(1024 * 1024 - 64, 1024 * 1024 - 40, 1024 * 1024, 1024 * 1024 + 1, 3 * 1024 * 1024)
  .map((size) => `{"title":"${'x'.repeat(Math.max(0, size - 40))}","author":"a","year":1}`)
const invalidUtf8 = fc.oneof(
  fc.uint8Array({ maxLength: 300 }).map((bytes) => Buffer.from(bytes)),
  fc.constantFrom(Buffer.from([0xc3, 0x28]), Buffer.from([0xff, 0xfe]), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from([0xf4, 0x90, 0x80, 0x80])).map((bad) =>
    Buffer.concat([Buffer.from('{"title":"'), bad, Buffer.from('","author":"a","year":1}')])
  ),
  fc.constantFrom(Buffer.from([0xef, 0xbb, 0xbf, ...Buffer.from('{"title":"t","author":"a","year":1}')]))
)
export const body: fc.Arbitrary<string | Buffer | undefined> = fc.oneof(
  { weight: 6, arbitrary: bookish },
  { weight: 3, arbitrary: anyValueText },
  { weight: 2, arbitrary: pollution },
  { weight: 2, arbitrary: fc.string() },
  { weight: 2, arbitrary: invalidUtf8 },
  { weight: 1, arbitrary: deep },
  { weight: 1, arbitrary: huge },
  { weight: 1, arbitrary: fc.constant(undefined) }
)

/** Path ids: any string (raw or percent-encoded), very long, at and past the safe-integer edge. */
export const id = fc.oneof(
  fc.constantFrom('1', '2', '3', '01', '0', '-1', '1.0', '1e0', ' 1', '1 ', '+1', '0x1', String(SAFE), String(SAFE + 1), '9'.repeat(400), '%', '%zz', '%00', '%2F', '..', '.', '%2e%2e'),
  fc.string().map(encodeURIComponent),
  fc.string({ unit: 'grapheme' }).map(encodeURIComponent),
  fc.string({ unit: 'binary', maxLength: 50 }).map((value) => encodeURIComponent(value).replace(/%2[0-9A-F]/g, (match) => match.toLowerCase())),
  fc.stringMatching(/^[0-9a-zA-Z._~-]{0,40}$/),
  fc.integer({ min: 1, max: 20_000 }).map((n) => 'x'.repeat(n)),
  fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }).map(String)
)

const validToken = signToken()
/** Authorization values of any shape: valid, near-valid, junk, enormous. */
export const authorization = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(validToken, `Bearer ${validToken}`, `bearer   ${validToken}  `, `BEARER\t${validToken}`) },
  { weight: 1, arbitrary: fc.constantFrom('', ' ', 'Bearer', 'Bearer ', 'Basic YWRtaW46YWRtaW4=', `Bearer ${validToken} ${validToken}`, `${validToken},${validToken}`, `Token ${validToken}`) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary-ascii' }).map((value) => value.replace(/[\r\n\0]/g, '')) },
  { weight: 1, arbitrary: fc.tuple(fc.nat(validToken.length - 1), fc.string({ unit: 'binary-ascii', minLength: 1, maxLength: 1 })).map(([at, c]) => validToken.slice(0, at) + c + validToken.slice(at + 1)) },
  { weight: 1, arbitrary: fc.integer({ min: 1000, max: 200_000 }).map((n) => `Bearer ${'a'.repeat(n)}`) }
)
export const contentType = fc.option(
  fc.oneof(
    fc.constantFrom('application/json', 'application/json; charset=utf-8', 'application/json; charset=utf-16', 'text/plain', 'multipart/form-data; boundary=x', 'application/x-www-form-urlencoded', 'application/octet-stream', '*/*', ';', 'application/json;;;'),
    fc.string({ unit: 'binary-ascii' }).map((value) => value.replace(/[\r\n\0]/g, ''))
  ),
  { nil: undefined }
)
const method = fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS')

export const request = fc
  .record({
    method,
    path: fc.oneof(
      { weight: 1, arbitrary: fc.constant('/book') },
      { weight: 1, arbitrary: fc.constant('/books') },
      { weight: 4, arbitrary: id.map((value) => `/book/${value}`) },
      { weight: 1, arbitrary: fc.constant('/login') },
      { weight: 1, arbitrary: fc.constant('/users') },
      { weight: 2, arbitrary: id.map((value) => `/users/${value}`) }
    ),
    authorization: fc.option(authorization, { nil: undefined }),
    contentType,
    payload: body
  })
  .map(({ method, path, authorization, contentType, payload }): Generated => {
    const headers: Record<string, string> = {}
    if (authorization !== undefined) headers.authorization = authorization
    if (contentType !== undefined && payload !== undefined) headers['content-type'] = contentType
    return { method, url: path, headers, payload: method === 'GET' || method === 'HEAD' ? undefined : payload }
  })
