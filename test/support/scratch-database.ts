import { randomBytes } from 'node:crypto'
import pg from 'pg'

/** A PostgreSQL database of its own for one test suite or benchmark run. */
export interface ScratchDatabase {
  /** Its connection URL. */
  url: string
  /** Drops it (forcing out any connection left). */
  drop(): Promise<void>
}

/**
 * Creates a new empty database named `<prefix>_<random>` on the server of `adminUrl`, so runs
 * never collide.
 *
 * @throws when the server cannot be reached or refuses the `CREATE DATABASE`.
 */
export async function createScratchDatabase(adminUrl: string, prefix: string): Promise<ScratchDatabase> {
  const name = `${prefix}_${randomBytes(6).toString('hex')}`
  const admin = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 3000 })
  try {
    await admin.connect()
    await admin.query(`CREATE DATABASE ${name}`)
  } finally {
    await admin.end().catch(() => {})
  }
  const url = new URL(adminUrl)
  url.pathname = `/${name}`
  return {
    url: url.toString(),
    drop: async () => {
      const client = new pg.Client({ connectionString: adminUrl })
      await client.connect()
      try {
        await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
      } finally {
        await client.end()
      }
    }
  }
}
