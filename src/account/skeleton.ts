import unhomoglyph from 'unhomoglyph'

/**
 * The confusable skeleton of a username (docs/accounts.md "Look-alike usernames"): two usernames
 * with the same skeleton look alike, and only the first may exist (409 `User already exists`).
 *
 * It is Unicode UTS #39's skeleton (section 4: NFD, each character replaced by its prototype from
 * confusables.txt, NFD again) of the username in the form usernames are compared in: NFKC, so a
 * full-width `ａｄｍｉｎ` is `admin`, and lower case, as usernames are unique ignoring case; the
 * result is lower-cased again, as some prototypes are capitals (`0` is `O`). The prototypes are
 * `unhomoglyph`'s table, generated from confusables.txt (13.0.0). So `аdmin` (a Cyrillic а),
 * `ａｄｍｉｎ`, `admın` and `adrnin` all have the skeleton of `admin`. No Node.js import: the web
 * page could bundle it.
 *
 * The skeleton is stored with each account (`accounts.username_skeleton`, unique: migration
 * 0011), so the check is one index lookup and holds under concurrent creation. A change of this
 * function or of the table's version changes skeletons: it needs a migration that computes them
 * again.
 */
export function usernameSkeleton(username: string): string {
  const compared = username.normalize('NFKC').toLowerCase().normalize('NFD').replace(/\p{Default_Ignorable_Code_Point}/gu, '')
  return unhomoglyph(compared).normalize('NFD').toLowerCase()
}
