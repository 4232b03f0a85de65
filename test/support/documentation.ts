import { readdirSync, readFileSync } from 'node:fs'

const root = new URL('../../', import.meta.url)

/**
 * The README followed by every page under docs/ (name order): the documentation whose examples
 * the tests run verbatim. Examples move between the README and its pages; the tests find them by
 * what they say, wherever they are.
 */
export const DOCUMENTATION = [
  'README.md',
  ...readdirSync(new URL('docs/', root))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`)
]
  .map((path) => readFileSync(new URL(path, root), 'utf8'))
  .join('\n')
