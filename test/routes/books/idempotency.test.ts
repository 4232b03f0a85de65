import assert from 'node:assert/strict'
import { test } from 'node:test'
import { authHeaders, signToken } from '../../support/app.js'
import { assertEnvelope, dune } from '../../support/books.js'
import { describeEachEngine } from '../../support/suite.js'

/**
 * `Idempotency-Key` on POST /book (docs/contract.md "Hardening"), in-process on both engines:
 * a retry gets the first answer and creates nothing; another body is 422; a retry while the
 * first is in flight is 409; keys are scoped to the token's `sub`; without the header nothing changes.
 */
const alice = authHeaders(signToken({ sub: 'alice' }))
const bob = authHeaders(signToken({ sub: 'bob' }))

describeEachEngine('POST /book with Idempotency-Key', ({ app, withFreshApp }) => {
  const post = (headers: Record<string, string>, payload: object | string, key?: string) =>
    app().inject({
      method: 'POST',
      url: '/book',
      headers: { ...headers, 'content-type': 'application/json', ...(key === undefined ? {} : { 'idempotency-key': key }) },
      payload
    })
  const count = async () => (await app().inject({ url: '/books', headers: alice })).json().data.length as number

  test('a retry with the same key and body gets the first answer (201, same book) and creates nothing', async () => {
    const before = await count()
    const first = await post(alice, dune, 'retry-1')
    assert.equal(first.statusCode, 201, first.body)
    const book = first.json().data
    for (const payload of [dune, JSON.stringify(dune, null, 2), { ...dune, id: 99, extra: true }]) {
      const again = await post(alice, payload, 'retry-1')
      assertEnvelope(again, 201, 'Book created successfully', book)
    }
    assert.equal(await count(), before + 1)
  })

  test('a replayed answer says so with Idempotent-Replayed: true; a first answer and a create without a key do not', async () => {
    const first = await post(alice, dune, 'replay-mark')
    assert.equal(first.statusCode, 201)
    assert.equal(first.headers['idempotent-replayed'], undefined)
    const again = await post(alice, dune, 'replay-mark')
    assert.equal(again.statusCode, 201)
    assert.equal(again.headers['idempotent-replayed'], 'true')
    assert.equal((await post(alice, dune)).headers['idempotent-replayed'], undefined)
    // Another subject's first use of the same key stores a book: no mark.
    assert.equal((await post(bob, dune, 'replay-mark')).headers['idempotent-replayed'], undefined)
  })

  test('the replay is the first answer even after the book changed or was deleted', async () => {
    const first = (await post(alice, dune, 'retry-2')).json().data
    assert.equal((await app().inject({ method: 'PUT', url: `/book/${first.id}`, headers: alice, payload: { year: 2000 } })).statusCode, 200)
    assertEnvelope(await post(alice, dune, 'retry-2'), 201, 'Book created successfully', first)
    assert.equal((await app().inject({ method: 'DELETE', url: `/book/${first.id}`, headers: alice })).statusCode, 200)
    assertEnvelope(await post(alice, dune, 'retry-2'), 201, 'Book created successfully', first)
  })

  test('the same key with another body: 422, nothing created', async () => {
    assert.equal((await post(alice, dune, 'retry-3')).statusCode, 201)
    const before = await count()
    for (const payload of [{ ...dune, year: 1966 }, { ...dune, title: 'Dune Messiah' }, { ...dune, author: 'F. Herbert' }]) {
      assertEnvelope(await post(alice, payload, 'retry-3'), 422, 'Idempotency key reused with a different body')
    }
    assert.equal(await count(), before)
  })

  test('keys are scoped to the token subject: the same key from another sub creates its own book', async () => {
    const mine = (await post(alice, dune, 'shared-key')).json().data
    const theirs = await post(bob, dune, 'shared-key')
    assert.equal(theirs.statusCode, 201)
    assert.notEqual(theirs.json().data.id, mine.id)
    assert.equal((await post(bob, { ...dune, year: 1 }, 'shared-key')).statusCode, 422)
  })

  test('a retry while the first is in flight: 409 Request in progress; one book', async () => {
    const before = await count()
    const answers = await Promise.all([post(alice, dune, 'in-flight'), post(alice, dune, 'in-flight')])
    assert.deepEqual(answers.map((answer) => answer.statusCode).sort(), [201, 409])
    assertEnvelope(answers.find((answer) => answer.statusCode === 409)!, 409, 'Request in progress')
    assert.equal(await count(), before + 1)
    assert.equal((await post(alice, dune, 'in-flight')).json().data.id, answers.find((answer) => answer.statusCode === 201)!.json().data.id)
  })

  test('without the header every POST creates a book, as before', async () => {
    const before = await count()
    const ids = new Set<number>()
    for (let index = 0; index < 3; index++) ids.add((await post(alice, dune)).json().data.id)
    assert.equal(ids.size, 3)
    assert.equal(await count(), before + 3)
  })

  test('an invalid body with a key is 400 and does not use the key; an empty or over-long key is 400', async () => {
    assertEnvelope(await post(alice, { title: '', author: 'A', year: 1 }, 'later-valid'), 400, 'Invalid input')
    assert.equal((await post(alice, dune, 'later-valid')).statusCode, 201)
    const before = await count()
    assertEnvelope(await post(alice, dune, ''), 400, 'Invalid input')
    assertEnvelope(await post(alice, dune, 'k'.repeat(256)), 400, 'Invalid input')
    assert.equal((await post(alice, { ...dune, title: 'Long key' }, 'k'.repeat(255))).statusCode, 201)
    assert.equal(await count(), before + 1)
  })

  test('with AUTH_ENABLED=false keys are shared by every client', async () => {
    await withFreshApp(async (fresh) => {
      const send = (payload: object) =>
        fresh.inject({ method: 'POST', url: '/book', headers: { 'idempotency-key': 'open' }, payload })
      const first = await send(dune)
      assert.equal(first.statusCode, 201)
      assert.deepEqual((await send(dune)).json().data, first.json().data)
      assert.equal((await send({ ...dune, year: 2 })).statusCode, 422)
    }, { AUTH_ENABLED: false })
  })
})
