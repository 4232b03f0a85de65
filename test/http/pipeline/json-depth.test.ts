import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { exceedsJsonBounds, MAX_JSON_DEPTH, MAX_JSON_VALUES, nestsDeeperThan } from '../../../src/http/pipeline/json-depth.js'
import { authHeaders, signToken } from '../../support/app.js'
import { describeEachEngine, suiteServer } from '../../support/suite.js'
import { processSkipReason } from '../../support/scope.js'

/**
 * docs/contract.md "Hardening": a body nested deeper than 32 arrays/objects, anywhere (ignored
 * fields included), is 400 `Invalid input`, decided without building the value; after the token
 * check, like every body error.
 */

const invalidInput = { status: 400, message: 'Invalid input', data: null }
const book = { title: 'Deep', author: 'Nest', year: 2000 }

/** `depth` nested arrays around `inner`, e.g. `[[1]]` for depth 2. */
const nested = (depth: number, inner = '1') => '['.repeat(depth) + inner + ']'.repeat(depth)
/** A valid book body with `extra` (JSON text) under an unknown key; the object itself is depth 1. */
const bookWith = (extra: string) => JSON.stringify(book).slice(0, -1) + `,"ignored":${extra}}`

describe('nesting depth scan', () => {
  const deeper = (text: string, max = 3) => nestsDeeperThan(Buffer.from(text), max)
  test('counts arrays and objects together, anywhere in the text', () => {
    assert.equal(deeper('{"a":[{"b":1}]}'), false)
    assert.equal(deeper('{"a":[{"b":[1]}]}'), true)
    assert.equal(deeper('[[[]],[[]],{"x":[]}]'), false)
    assert.equal(deeper('[1,[2,[3,[4]]]]'), true)
  })
  test('brackets inside strings, escaped quotes and backslashes included, do not count', () => {
    assert.equal(deeper('{"a":"[[[[{{{{"}'), false)
    assert.equal(deeper('{"a":"\\"[[[[","b":"\\\\"}'), false)
    assert.equal(deeper('{"a\\"[[[":["\\\\",["]]]]"]]}'), false)
    assert.equal(deeper('{"a":"\\\\",[[[1]]]}'), true)
    assert.equal(deeper('["é[[[[", "🌞{{{{"]'), false)
  })
  test('32 levels pass, 33 do not', () => {
    assert.equal(MAX_JSON_DEPTH, 32)
    assert.equal(nestsDeeperThan(Buffer.from(nested(32)), MAX_JSON_DEPTH), false)
    assert.equal(nestsDeeperThan(Buffer.from(nested(33)), MAX_JSON_DEPTH), true)
  })
})

describe('width scan', () => {
  const wider = (text: string, max = 3) => exceedsJsonBounds(Buffer.from(text), MAX_JSON_DEPTH, max)
  test('counts arrays, objects and the commas between elements and members, outside strings', () => {
    assert.equal(wider('{"a":1,"b":2}'), false, 'one object, one comma')
    assert.equal(wider('{"a":[1,2]}'), false)
    assert.equal(wider('{"a":[1,2,3]}'), true)
    assert.equal(wider('[[],[]]'), true)
    assert.equal(wider('{"a":",,,,[[[{{{"}'), false)
  })
  test('10,000 pass, one more does not', () => {
    assert.equal(MAX_JSON_VALUES, 10_000)
    const list = (commas: number) => `[${'1,'.repeat(commas)}1]`
    assert.equal(exceedsJsonBounds(Buffer.from(list(9_999)), MAX_JSON_DEPTH, MAX_JSON_VALUES), false)
    assert.equal(exceedsJsonBounds(Buffer.from(list(10_000)), MAX_JSON_DEPTH, MAX_JSON_VALUES), true)
  })
})

describeEachEngine('bodies too wide', ({ app }) => {
  test('340,000 empty arrays in ~1 MiB under an unknown key: 400 Invalid input, on POST and PUT /book and POST /login; 9,000 pass', async () => {
    const headers = { ...authHeaders(), 'content-type': 'application/json' }
    const wide = bookWith(`[${'[],'.repeat(340_000)}[]]`)
    assert.ok(wide.length > 1_000_000 && wide.length < 1024 * 1024)
    assert.deepEqual((await app().inject({ method: 'POST', url: '/book', headers, payload: wide })).json(), invalidInput)
    const fine = await app().inject({ method: 'POST', url: '/book', headers, payload: bookWith(`[${'0,'.repeat(9_000)}0]`) })
    assert.equal(fine.statusCode, 201, fine.body)
    const id = fine.json().data.id
    assert.deepEqual((await app().inject({ method: 'PUT', url: `/book/${id}`, headers, payload: wide })).json(), invalidInput)
    const login = JSON.stringify({ username: 'admin', password: 'x' }).slice(0, -1) + `,"x":[${'{},'.repeat(20_000)}{}]}`
    assert.deepEqual((await app().inject({ method: 'POST', url: '/login', headers, payload: login })).json(), invalidInput)
    assert.deepEqual((await app().inject({ url: `/book/${id}`, headers })).json().data, { id, ...book })
  })
})

describeEachEngine('bodies nested too deep', ({ app }) => {
  test('POST /book, PUT /book/{id}, POST /login, POST and PUT /users: 400 Invalid input past 32 levels, in an ignored field too', async () => {
    const token = signToken()
    const headers = { ...authHeaders(token), 'content-type': 'application/json' }
    const created = await app().inject({ method: 'POST', url: '/book', headers, payload: bookWith(nested(31)) })
    assert.equal(created.statusCode, 201, 'the object and 31 arrays: 32 levels')
    const id = created.json().data.id
    const tooDeep = bookWith(nested(32))
    assert.deepEqual((await app().inject({ method: 'POST', url: '/book', headers, payload: tooDeep })).json(), invalidInput)
    assert.deepEqual((await app().inject({ method: 'PUT', url: `/book/${id}`, headers, payload: tooDeep })).json(), invalidInput)
    const login = JSON.stringify({ username: 'admin', password: 'x', deep: JSON.parse(nested(40)) })
    assert.deepEqual((await app().inject({ method: 'POST', url: '/login', headers: { 'content-type': 'application/json' }, payload: login })).json(), invalidInput)
    const account = JSON.stringify({ username: 'deep', password: 'a long enough passphrase', role: 'reader', deep: JSON.parse(nested(40)) })
    assert.deepEqual((await app().inject({ method: 'POST', url: '/users', headers, payload: account })).json(), invalidInput)
    assert.deepEqual((await app().inject({ method: 'PUT', url: '/users/admin', headers, payload: account })).json(), invalidInput)
    assert.deepEqual((await app().inject({ url: `/book/${id}`, headers })).json().data, { id, ...book })
  })

  test('the order of checks holds: 401 without a token, 404 before the body on PUT', async () => {
    const tooDeep = bookWith(nested(100))
    const anonymous = await app().inject({ method: 'POST', url: '/book', headers: { 'content-type': 'application/json' }, payload: tooDeep })
    assert.equal(anonymous.statusCode, 401)
    const missing = await app().inject({ method: 'PUT', url: '/book/999999', headers: authHeaders(), payload: tooDeep })
    assert.deepEqual(missing.json(), { status: 404, message: 'Book not found', data: null })
  })
})

describe('a deeply nested ~1 MiB body (real process)', { skip: processSkipReason }, () => {
  const running = suiteServer()

  test('500,000 nested arrays under an unknown key: 400 Invalid input, nothing stored, the next request served', async () => {
    const body = bookWith(nested(500_000, ''))
    assert.ok(body.length > 999_000 && body.length < 1024 * 1024)
    const headers = { ...authHeaders(), 'content-type': 'application/json' }
    const answers = await Promise.all(Array.from({ length: 8 }, () => fetch(`${running().url}/book`, { method: 'POST', headers, body })))
    for (const answer of answers) assert.deepEqual([answer.status, await answer.json()], [400, invalidInput])
    const list = await fetch(`${running().url}/books`, { headers })
    assert.deepEqual(((await list.json()) as { data: unknown[] }).data, [])
    const created = await fetch(`${running().url}/book`, { method: 'POST', headers, body: JSON.stringify(book) })
    assert.equal(created.status, 201)
  })
})
