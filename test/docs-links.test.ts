import assert from 'node:assert/strict'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { test } from 'node:test'
import { fileURLToPath } from 'node:url'

/**
 * The README and the pages under docs/ hold together: every relative link and image reaches a file of the
 * repository (and, with `#anchor`, a heading of that file), and every repository path the text
 * names in backticks (`src/…`, `test/…`, `docs/…`, …) exists. Pages move and files get renamed;
 * this is what keeps a reader from following a dead link.
 */
const root = fileURLToPath(new URL('..', import.meta.url))
const pages = ['README.md', ...readdirSync(join(root, 'docs')).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`)]

/** The text outside fenced code blocks (links and paths there are examples, not references). */
function prose(text: string): string {
  return text.replace(/^```[\s\S]*?^```/gm, '')
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
function anchorOf(heading: string): string {
  return heading.trim().toLowerCase().replace(/`/g, '').replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-')
}

/** The anchors a Markdown file offers: its headings' and any explicit `id="…"`. */
function anchorsOf(file: string): Set<string> {
  const text = prose(readFileSync(join(root, file), 'utf8'))
  const headings = [...text.matchAll(/^#{1,6} (.*)$/gm)].map((match) => anchorOf(match[1]!))
  const ids = [...text.matchAll(/\bid="([^"]+)"/g)].map((match) => match[1]!)
  return new Set([...headings, ...ids])
}

/** Repository paths named in backticks: a known top-level folder and no pattern characters. */
const TOP_LEVEL = /^(src|test|web|docs|bench|scripts|container|\.ci)\/[^\s*{}<>…]+$/

for (const page of pages) {
  test(`${page}: every relative link and every named path exists`, () => {
    const text = prose(readFileSync(join(root, page), 'utf8'))
    const missing: string[] = []
    const links = [...text.matchAll(/\]\(([^)\s]+)\)/g), ...text.matchAll(/<img [^>]*\bsrc="([^"]+)"/g)]
    for (const [, target] of links) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target!) || target!.startsWith('//')) continue
      const [path, anchor] = target!.split('#') as [string, string | undefined]
      const file = path === '' ? page : relative(root, join(root, dirname(page), decodeURI(path)))
      if (!existsSync(join(root, file))) missing.push(`link ${target} (no file ${file})`)
      else if (anchor !== undefined && file.endsWith('.md') && !anchorsOf(file).has(anchor)) missing.push(`link ${target} (no heading #${anchor} in ${file})`)
    }
    for (const [, named] of text.matchAll(/`([^`\s]+)`/g)) {
      const path = named!.replace(/[.,:;)]+$/, '').replace(/:\d+$/, '')
      if (TOP_LEVEL.test(path) && !existsSync(join(root, path))) missing.push(`path ${path}`)
    }
    assert.deepEqual(missing, [], `${page} names what does not exist`)
  })
}

test('a dead link is noticed', () => {
  assert.equal(existsSync(join(root, 'docs/no-such-page.md')), false)
  assert.equal(anchorsOf('README.md').has('no-such-heading'), false)
  assert.equal(anchorsOf('README.md').has(anchorOf('Quick start')), true)
})

/** Folders of build output, installs and local data: not the repository's own files. */
const NOT_THE_REPOSITORY = new Set(['.git', 'node_modules', 'dist', 'data', 'coverage'])

/** Every file of the repository (its working tree, without {@link NOT_THE_REPOSITORY}), relative to its root. */
function repositoryFiles(folder = ''): string[] {
  return readdirSync(join(root, folder), { withFileTypes: true }).flatMap((entry) => {
    const path = folder === '' ? entry.name : `${folder}/${entry.name}`
    if (entry.isDirectory()) return NOT_THE_REPOSITORY.has(entry.name) ? [] : repositoryFiles(path)
    return entry.isFile() ? [path] : []
  })
}

// A clone holds only the repository: a reference to a file beside it (the specification the
// contract restates, a benchmark peer) dead-ends for its reader. docs/contract.md carries the contract.
test('no file of the repository refers to a file outside it', () => {
  const outside = ['..', 'shared'].join('/')
  const referring = repositoryFiles().filter((file) => !/\.(png|ico|gz)$/.test(file) && readFileSync(join(root, file), 'latin1').includes(outside))
  assert.deepEqual(referring, [], `these files refer to ${outside}`)
})
