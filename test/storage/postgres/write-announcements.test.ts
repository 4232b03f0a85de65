import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import pg from 'pg'
import { parsePosition } from '../../../src/storage/contracts/read-replicas.js'
import {
  ACTORS_PER_ANNOUNCEMENT,
  ANNOUNCE_WRITES,
  WriteAnnouncements,
  actorKey
} from '../../../src/storage/postgres/postgres-write-announcements.js'
import { eventually } from '../../support/client.js'
import { createPostgresDatabase, postgresSkipReason } from '../../support/engines.js'

// docs/several-instances.md "Read replicas": every instance announces its accounts' writes and
// hears the others'; a read first takes a barrier on the listening connection, after which every
// write announced before the read is known.

/** Announces `actors` (keys) from `client` as an instance does after their writes; returns the position. */
async function announce(client: pg.Client, actors: string[]): Promise<bigint> {
  const { rows } = await client.query<{ lsn: string }>(ANNOUNCE_WRITES.text, [JSON.stringify(actors)])
  return parsePosition(rows[0]!.lsn)!
}

describe('write announcements [postgres]', { skip: postgresSkipReason }, () => {
  let url = ''
  let drop = async () => {}
  let other: pg.Client
  let announcements: WriteAnnouncements

  before(async () => {
    const database = await createPostgresDatabase()
    url = database.url
    drop = database.drop
    other = new pg.Client({ connectionString: url })
    await other.connect()
    announcements = new WriteAnnouncements(url)
    announcements.start()
    await eventually('the listening connection listens', async () => announcements.heardFrom !== undefined, 10_000)
  })

  after(async () => {
    announcements.close()
    await other.end()
    await drop()
  })

  test('a write announced by another connection is known once a barrier begun after its announcement answers, every time', async () => {
    for (let n = 0; n < 200; n++) {
      const position = await announce(other, [`writer ${n}`])
      await announcements.barrier()
      assert.equal(announcements.lastWriteOf(`writer ${n}`), position, `announcement ${n}`)
    }
    assert.equal(announcements.lastWriteOf('an account that did not write'), undefined)
  })

  test(`${ACTORS_PER_ANNOUNCEMENT} accounts of the longest kept keys fit in one announcement; a longer actor is announced as its SHA-256`, async () => {
    const longest = 'x'.repeat(198)
    assert.equal(actorKey(longest), longest)
    for (const actor of ['x'.repeat(199), 'é'.repeat(100), '"'.repeat(100), 'a'.repeat(100_000)]) {
      assert.match(actorKey(actor), /^sha256:[A-Za-z0-9_-]{43}$/, `${actor.slice(0, 8)}… (${actor.length} characters)`)
    }
    const actors = Array.from({ length: ACTORS_PER_ANNOUNCEMENT }, (_, n) => `${String(n).padStart(2, '0')}${longest.slice(2)}`)
    const position = await announce(other, actors)
    await announcements.barrier()
    for (const actor of actors) assert.equal(announcements.lastWriteOf(actor), position)
  })

  test('while the listening connection is lost nothing is taken as heard; once it listens again, announcements are heard again', async () => {
    const before = announcements.heardFrom!
    await other.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'book-service-write-announcements' AND datname = current_database()")
    await eventually('the loss is noticed', async () => (await announcements.barrier(), announcements.heardFrom === undefined), 10_000)
    await eventually('it listens again', async () => announcements.heardFrom !== undefined, 10_000)
    assert.ok(announcements.heardFrom! >= before, 'the position it hears from only grows')
    const position = await announce(other, ['after the reconnection'])
    await announcements.barrier()
    assert.equal(announcements.lastWriteOf('after the reconnection'), position)
  })
})
