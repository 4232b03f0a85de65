/**
 * The case-folded form of a title or author, as stored in the `title_folded` / `author_folded`
 * columns and used for the `title` / `author` filters and the `title` / `author` sorts:
 * Unicode NFC, then `String.prototype.toLowerCase` (full Unicode, locale-independent).
 *
 * Folding in the application, not in SQL, makes matching and ordering identical on SQLite
 * (whose `LIKE` and `lower()` only fold ASCII) and PostgreSQL (whose `lower()` depends on the
 * database's locale).
 *
 * @param text a title, an author, or a search term.
 * @returns the folded text.
 */
export function foldText(text: string): string {
  return text.normalize('NFC').toLowerCase()
}
