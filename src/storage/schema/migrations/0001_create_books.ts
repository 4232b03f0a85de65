import type { Kysely } from 'kysely'
import type { Engine } from '../../contracts/engine.js'
import type { MarkedMigration } from './migration.js'

/** Migration 0001 (`0001_create_books`), for `engine`: its compatibility mark and its `up`. */
export function createBooks(engine: Engine): MarkedMigration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('books')
        .addColumn('id', engine === 'postgres' ? 'bigint' : 'integer', (column) =>
          engine === 'postgres'
            ? column.primaryKey().generatedAlwaysAsIdentity()
            : column.primaryKey().autoIncrement()
        )
        .addColumn('title', 'text', (column) => column.notNull())
        .addColumn('author', 'text', (column) => column.notNull())
        .addColumn('year', 'integer', (column) => column.notNull())
        .execute()
    }
  }
}
