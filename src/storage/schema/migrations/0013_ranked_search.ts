import type { Kysely } from 'kysely'
import { BASE_LETTERS, DIACRITIC_LETTERS } from '../../../book/search.js'
import type { Engine } from '../../contracts/engine.js'
import { createIndexConcurrently } from '../online.js'
import { atomically, type MarkedMigration, type SqlTag } from './migration.js'

/** Migration 0013 (`0013_ranked_search`), for `engine`: its compatibility mark, its `up` and its online part. */
export function rankedSearch(engine: Engine, sql: SqlTag): MarkedMigration {
  return {
    // Older releases may run on it: the columns are computed by the engine on their writes too,
    // and they never name them.
    olderReleasesMayRun: true,
    // The search form of the title, in order, for the first ranks of a search in relevance order
    // (docs/search.md "How a page is read"; `tierStatement` in storage/sql/list.ts).
    async up(db: Kysely<unknown>) {
      if (engine === 'postgres') return
      await atomically(db, engine, sql, async () => {
        for (const statement of sqliteStatements()) await sql.raw(statement).execute(db)
      })
    },
    // PostgreSQL has the search forms since 0009 (stored generated columns): only their index,
    // built while the table keeps taking reads and writes.
    ...(engine === 'postgres' && {
      online: (db: Kysely<unknown>) => createIndexConcurrently(db, sql, { name: 'books_title_search_id', table: 'books', columns: '(title_search, id)' })
    })
  }
}

/**
 * SQLite's statements: `title_search` and `author_search`, the search forms of the folded columns
 * (`withoutDiacritics`, src/book/search.ts: each of `DIACRITIC_LETTERS` replaced by its base
 * letter, as PostgreSQL's `book_search_key` of 0009), as virtual generated columns (computed by
 * SQLite, on an older release's writes too; ALTER TABLE cannot add stored ones), and the index
 * `(title_search, id)`, which stores them. An ASCII text (as many characters as bytes) is its own
 * search form. Building the index computes every title's once (a few seconds per million books).
 */
function sqliteStatements(): string[] {
  const form = (column: string) => {
    let replaced = column
    const bases = [...BASE_LETTERS]
    ;[...DIACRITIC_LETTERS].forEach((letter, index) => {
      replaced = `replace(${replaced}, '${letter}', '${bases[index]}')`
    })
    return `CASE WHEN length(${column}) = length(CAST(${column} AS BLOB)) THEN ${column} ELSE ${replaced} END`
  }
  return [
    `ALTER TABLE books ADD COLUMN title_search TEXT GENERATED ALWAYS AS (${form('title_folded')}) VIRTUAL`,
    `ALTER TABLE books ADD COLUMN author_search TEXT GENERATED ALWAYS AS (${form('author_folded')}) VIRTUAL`,
    'CREATE INDEX books_title_search_id ON books (title_search, id)'
  ]
}
