import type { BookInput, BookPatch } from '../../book/schema.js'
import { foldText } from '../../book/fold.js'
import type { Engine } from '../contracts/engine.js'

/**
 * The one description of the fixed statements of the `books` table, for both engines: the
 * SQL is the same but for the placeholders (`?` on SQLite, `$n` on PostgreSQL). Each engine
 * compiles it in one place (`sqlite/sqlite-statements.ts`: prepared statements; `postgres/postgres-statements.ts`:
 * named statements). The list and count queries, whose shape varies, are built by Kysely in
 * `list.ts`. Every statement uses its placeholders once each, in ascending order, so the
 * values are bound positionally on both engines.
 */

/** The columns of a book in every response, in the order of the Book schema. */
export const BOOK_COLUMNS = 'id, title, author, year'
/** {@link BOOK_COLUMNS} and the version (for the `ETag`). */
export const VERSIONED_COLUMNS = `${BOOK_COLUMNS}, version`
/** The columns a new book is stored in, in the order of {@link insertValues}. */
export const STORED_COLUMNS = 'title, author, year, title_folded, author_folded'

/** The values of {@link STORED_COLUMNS}: title, author, year, folded title, folded author. */
export type InsertValues = [title: string, author: string, year: number, titleFolded: string, authorFolded: string]

/** Patch values in the order of the update statements: title, folded title, author, folded author, year (null: keep). */
export type PatchValues = [string | null, string | null, string | null, string | null, number | null]

/** The values a new book is stored with (storage folds the title and author for search and sort). */
export function insertValues(input: BookInput): InsertValues {
  return [input.title, input.author, input.year, foldText(input.title), foldText(input.author)]
}

/** The values of `patch` in the order of the update statements (absent fields are null). */
export function patchValues(patch: BookPatch): PatchValues {
  return [
    patch.title ?? null,
    patch.title === undefined ? null : foldText(patch.title),
    patch.author ?? null,
    patch.author === undefined ? null : foldText(patch.author),
    patch.year ?? null
  ]
}

/**
 * The first `count` placeholders of a statement on `engine`: `?` each on SQLite (bound in
 * order), `$1`, `$2`, … on PostgreSQL.
 */
export function placeholders(engine: Engine, count: number): string[] {
  return Array.from({ length: count }, (_, index) => (engine === 'sqlite' ? '?' : `$${index + 1}`))
}

/**
 * The fixed statements of `engine`, as SQL text. Parameters, in order:
 * - `page`: after id, limit: a page of the whole list by id ({@link BOOK_COLUMNS});
 * - `get`: id ({@link VERSIONED_COLUMNS}); `exists`: id (a row when the book exists);
 * - `insert`: the {@link InsertValues}; returns {@link BOOK_COLUMNS};
 * - `update`: the {@link PatchValues}, id; `updateIfVersion`: the same, then the version; both
 *   return {@link VERSIONED_COLUMNS}: present fields replace, absent ones keep, the version goes up;
 * - `delete`: id; `deleteIfVersion`: id, version; both return the id of the removed row;
 * - `ping`: none.
 */
export function bookStatements(engine: Engine) {
  const [title, titleFolded, author, authorFolded, year, id, version] = placeholders(engine, 7)
  const set = `title = COALESCE(${title}, title), title_folded = COALESCE(${titleFolded}, title_folded),
  author = COALESCE(${author}, author), author_folded = COALESCE(${authorFolded}, author_folded),
  year = COALESCE(${year}, year), version = version + 1`
  const [first, second] = placeholders(engine, 2)
  return {
    page: `SELECT ${BOOK_COLUMNS} FROM books WHERE id > ${first} ORDER BY id LIMIT ${second}`,
    get: `SELECT ${VERSIONED_COLUMNS} FROM books WHERE id = ${first}`,
    exists: `SELECT 1 FROM books WHERE id = ${first}`,
    insert: `INSERT INTO books (${STORED_COLUMNS}) VALUES (${placeholders(engine, 5).join(', ')}) RETURNING ${BOOK_COLUMNS}`,
    update: `UPDATE books SET ${set} WHERE id = ${id} RETURNING ${VERSIONED_COLUMNS}`,
    updateIfVersion: `UPDATE books SET ${set} WHERE id = ${id} AND version = ${version} RETURNING ${VERSIONED_COLUMNS}`,
    delete: `DELETE FROM books WHERE id = ${first} RETURNING id`,
    deleteIfVersion: `DELETE FROM books WHERE id = ${first} AND version = ${second} RETURNING id`,
    ping: 'SELECT 1'
  }
}
