import type { ComponentChild } from 'preact'

/**
 * The Unicode bidirectional formatting characters (UAX #9: the embeddings, overrides and isolates
 * U+202A–U+202E and U+2066–U+2069, and the marks U+200E, U+200F, U+061C). In a title they can make
 * the text display in another order than it is stored (`\u202Egnp.exe` shows as `exe.png`).
 */
const BIDI_CONTROL = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g

/** The code point of `character` as `U+202E`. */
const codePoint = (character: string) => `U+${character.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`

/**
 * `text` for places that show plain text (names in buttons, dialogs, messages): each bidirectional
 * formatting character replaced by its visible code point in brackets (`[U+202E]`), so it cannot
 * reorder what follows it.
 */
export function visibleControls(text: string): string {
  return text.replace(BIDI_CONTROL, (character) => `[${codePoint(character)}]`)
}

/**
 * A value a person typed (a title, an author), shown safely in the page (docs/web-page.md "Web page"):
 * isolated from the text around it (`<bdi>`, whose direction comes from its own first strong
 * character, so a Hebrew or Arabic title still reads right to left and cannot reorder the row),
 * with each bidirectional formatting character shown as its code point (marked, so it is clear it
 * is not part of the text as typed) instead of acting on the characters after it. `render`, when
 * given, shows each run of text between those characters (the list marks a search's matches in it).
 */
export function SafeText({ text, render }: { text: string; render?: (text: string) => ComponentChild }) {
  const parts: (string | { control: string })[] = []
  let last = 0
  for (const match of text.matchAll(BIDI_CONTROL)) {
    if (match.index > last) parts.push(text.slice(last, match.index))
    parts.push({ control: match[0] })
    last = match.index + match[0].length
  }
  if (last < text.length) parts.push(text.slice(last))
  return (
    <bdi>
      {parts.map((part) =>
        typeof part === 'string' ? (render ? render(part) : part) : (
          <span class="bidi-control" title={codePoint(part.control)}>
            {codePoint(part.control)}
          </span>
        )
      )}
    </bdi>
  )
}
