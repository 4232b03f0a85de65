import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core'
import { signToken } from '../../test/support/app.js'
import { removeDirectory, startServer, temporaryDirectory, type RunningServer } from '../../test/support/server.js'
import { assertNoProblems, launchBrowser, openSignedIn, skip, violationsInBothThemes, watchPage, type PageWatch } from './support/browser.js'

/**
 * The page on a phone (390 × 844, docs/web-page.md "Web page"): as it opens, without scrolling,
 * at least six books are wholly on the screen under the header, the search and the sort buttons;
 * the sort buttons stand on one line; the History view of a book with many changes keeps its
 * Close button on the screen wherever its changes are scrolled to.
 */
describe('the web page on a phone (390 × 844)', { timeout: 180_000 }, () => {
  let directory: string
  let server: RunningServer
  let browser: Browser
  const contexts: BrowserContext[] = []
  const editor = { sub: 'eddie', role: 'editor' }

  /** Books as a collection has them: titles and authors of several lengths. */
  const BOOKS = [
    ['One Hundred Years of Solitude', 'Gabriel García Márquez', 1967],
    ['The Left Hand of Darkness', 'Ursula K. Le Guin', 1969],
    ['Ficciones', 'Jorge Luis Borges', 1944],
    ['Beloved', 'Toni Morrison', 1987],
    ['The Master and Margarita', 'Mikhail Bulgakov', 1967],
    ['Kindred', 'Octavia E. Butler', 1979],
    ['Things Fall Apart', 'Chinua Achebe', 1958],
    ['The Tale of Genji', 'Murasaki Shikibu', 1010],
    ['Invisible Cities', 'Italo Calvino', 1972],
    ['Pedro Páramo', 'Juan Rulfo', 1955]
  ] as const

  async function api(method: string, path: string, body: unknown): Promise<void> {
    const response = await fetch(`${server.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${signToken(editor)}`, 'content-type': 'application/json' },
      body: JSON.stringify(body)
    })
    assert.ok(response.ok, `${method} ${path}: ${response.status}`)
  }

  async function phone(): Promise<{ page: Page; watch: PageWatch }> {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 } })
    contexts.push(context)
    const page = await context.newPage()
    const watch = await watchPage(page, server.url)
    await openSignedIn(page, `${server.url}/#/books`, editor)
    await page.getByText(`Books 1 to ${BOOKS.length} of ${BOOKS.length}`).waitFor()
    return { page, watch }
  }

  /** Whether the whole of `locator`'s element is inside the viewport. */
  function onScreen(locator: Locator): Promise<boolean> {
    return locator.evaluate((element) => {
      const box = element.getBoundingClientRect()
      return box.top >= 0 && box.left >= 0 && box.bottom <= window.innerHeight && box.right <= window.innerWidth
    })
  }

  before(async () => {
    if (skip) return
    directory = temporaryDirectory()
    server = await startServer({ dataDirectory: directory })
    browser = await launchBrowser()
    for (const [title, author, year] of BOOKS) await api('POST', '/book', { title, author, year })
    // Twelve changes of the first book: a History view far taller than the screen.
    for (let version = 2; version <= 13; version++) await api('PUT', '/book/1', { year: 1950 + version, title: `One Hundred Years of Solitude, edition ${version}` })
  })

  after(async () => {
    if (skip) return
    for (const context of contexts) await context.close().catch(() => {})
    await browser?.close()
    await server?.stop()
    removeDirectory(directory)
  })

  test('six books or more on the first screen, the sort buttons on one line', { skip }, async () => {
    const { page, watch } = await phone()
    assert.equal(await page.evaluate(() => window.scrollY), 0)
    const rows = page.locator('table.books tbody tr')
    const visible = await rows.evaluateAll((all) => all.filter((row) => {
      const box = row.getBoundingClientRect()
      return box.top >= 0 && box.bottom <= window.innerHeight
    }).length)
    assert.ok(visible >= 6, `${visible} books wholly on the first 390 × 844 screen`)
    const sortButtons = page.getByRole('button', { name: /^Sort by / })
    assert.equal(await sortButtons.count(), 4)
    const tops = await sortButtons.evaluateAll((buttons) => buttons.map((button) => Math.round(button.getBoundingClientRect().top)))
    assert.equal(new Set(tops).size, 1, `the sort buttons' tops: ${tops.join(', ')} px`)
    for (const button of await sortButtons.all()) assert.ok(await onScreen(button))
    assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), 'nothing wider than the screen')
    assert.deepEqual(await violationsInBothThemes(page, 'books on a phone'), [])
    assertNoProblems(watch)
  })

  test('the History view of a long history: Close stays on the screen while the changes scroll', { skip }, async () => {
    const { page, watch } = await phone()
    await page.getByRole('button', { name: /^History of “One Hundred Years of Solitude, edition 13”/ }).click()
    const dialog = page.getByRole('dialog', { name: 'History of book 1' })
    await dialog.locator('tbody tr').nth(9).waitFor()
    const close = dialog.getByRole('button', { name: 'Close' })
    const changes = dialog.locator('tbody tr')
    assert.ok(await onScreen(close), 'Close on the screen as the dialog opens')
    assert.equal(await onScreen(changes.last()), false, 'the oldest change loaded is off the screen at first')
    for (const row of [changes.nth(5), changes.last()]) {
      await row.scrollIntoViewIfNeeded()
      assert.ok(await onScreen(row))
      assert.ok(await onScreen(close), 'Close on the screen with the changes scrolled')
    }
    assert.deepEqual(await violationsInBothThemes(page, 'history on a phone'), [])
    await close.click()
    await dialog.waitFor({ state: 'detached' })
    assertNoProblems(watch)
  })
})
