import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { Browser, Page } from 'playwright-core'
import { signToken } from '../../test/support/app.js'
import { removeDirectory, startServer, temporaryDirectory, type RunningServer } from '../../test/support/server.js'
import { assertNoProblems, launchBrowser, openSignedIn, skip, violationsInBothThemes, watchPage } from './support/browser.js'

/**
 * The History view in Chromium against the real service (README "History and restore"): who
 * changed what, newest first, the changed fields marked; an editor restores a version after a
 * confirmation that shows what will change; Undo after a delete brings the book back under its
 * id; a reader sees the history and no restore control; axe in both themes, the keyboard, a
 * phone's width; a restore made elsewhere reaches an open page.
 */
describe('the History view', { timeout: 240_000 }, () => {
  let directory: string
  let server: RunningServer
  let browser: Browser
  let id = 0

  /** `method path` as `sub` (an editor), outside the page. */
  async function as(sub: string, method: string, path: string, body?: unknown): Promise<{ status: number; data: { id: number } }> {
    const response = await fetch(`${server.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${signToken({ sub, role: 'editor' })}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body)
    })
    return { status: response.status, data: ((await response.json()) as { data: { id: number } }).data }
  }

  async function tab(claims: Record<string, unknown>, width = 1280, title = 'Dune Messiah'): Promise<{ page: Page; watch: Awaited<ReturnType<typeof watchPage>> }> {
    const context = await browser.newContext({ viewport: { width, height: 844 } })
    const page = await context.newPage()
    const watch = await watchPage(page, server.url)
    await openSignedIn(page, `${server.url}/#/books`, claims)
    await page.locator('td.column-title', { hasText: new RegExp(`^${title}$`) }).waitFor()
    return { page, watch }
  }

  before(async () => {
    if (skip) return
    directory = temporaryDirectory()
    server = await startServer({ dataDirectory: directory })
    browser = await launchBrowser()
    const created = await as('alice', 'POST', '/book', { title: 'Dune', author: 'Frank Herbert', year: 1965 })
    id = created.data.id
    assert.equal((await as('bob', 'PUT', `/book/${id}`, { title: 'Dune Messiah' })).status, 200)
    assert.equal((await as('alice', 'PUT', `/book/${id}`, { year: 1969 })).status, 200)
  })

  after(async () => {
    if (skip) return
    await browser?.close()
    await server?.stop()
    removeDirectory(directory)
  })

  test('a reader reads who changed what, newest first, and has no restore control', { skip }, async () => {
    const { page, watch } = await tab({ sub: 'rita', role: 'reader' })
    await page.getByRole('button', { name: 'History of “Dune Messiah”' }).click()
    const dialog = page.getByRole('dialog', { name: `History of book ${id}` })
    await dialog.locator('tr[data-version="1"]').waitFor()
    const rows = dialog.locator('tbody tr')
    assert.deepEqual(await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-version'))), ['3', '2', '1'])
    assert.match(await rows.nth(0).innerText(), /Updated[\s\S]*alice[\s\S]*Year: 1965\s*→\s*1969 changed/)
    assert.match(await rows.nth(1).innerText(), /Updated[\s\S]*bob[\s\S]*Title: Dune\s*→\s*Dune Messiah changed/)
    assert.equal(await rows.nth(1).locator('li.differs').count(), 1, 'only the title is marked on version 2')
    assert.match(await rows.nth(2).innerText(), /Created[\s\S]*alice/)
    assert.equal(await dialog.getByRole('button', { name: /Restore/ }).count(), 0)
    assert.deepEqual(await violationsInBothThemes(page, 'history (reader)'), [])
    await page.keyboard.press('Escape')
    await page.getByRole('button', { name: 'History of “Dune Messiah”' }).waitFor()
    assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('aria-label')), 'History of “Dune Messiah”', 'focus back on the opener')
    assertNoProblems(watch)
  })

  test('an editor restores a version after seeing what will change, by keyboard; the open reader page follows', { skip }, async () => {
    const reader = await tab({ sub: 'rita', role: 'reader' })
    const { page, watch } = await tab({ sub: 'eddie', role: 'editor' })
    await page.getByRole('button', { name: 'History of “Dune Messiah”' }).focus()
    await page.keyboard.press('Enter')
    const dialog = page.getByRole('dialog', { name: `History of book ${id}` })
    await dialog.getByRole('button', { name: 'Restore version 1' }).focus()
    await page.keyboard.press('Enter')
    await dialog.getByRole('heading', { name: 'Restore version 1?' }).waitFor()
    const differing = await dialog.locator('table.versions tr.differs th').allInnerTexts()
    assert.deepEqual(differing.map((text) => text.replace(/\s+differs$/, '')), ['Title', 'Year'])
    assert.deepEqual(await violationsInBothThemes(page, 'restore confirmation'), [])
    await dialog.getByRole('button', { name: 'Restore this version' }).click()
    await dialog.locator('tr[data-version="4"]').waitFor()
    assert.match(await dialog.locator('tr[data-version="4"]').innerText(), /Restored[\s\S]*eddie[\s\S]*Title: Dune Messiah\s*→\s*Dune changed/)
    await page.getByRole('status').filter({ hasText: 'Restored “Dune” to version 1.' }).waitFor()
    await page.keyboard.press('Escape')
    await page.locator('td.column-title', { hasText: /^Dune$/ }).waitFor()
    // Live: the reader's open page shows the restored book without reloading.
    await reader.page.locator('td.column-title', { hasText: /^Dune$/ }).waitFor()
    assertNoProblems(watch)
    assertNoProblems(reader.watch)
  })

  test('Undo after a delete brings the book back under its id', { skip }, async () => {
    const { page, watch } = await tab({ sub: 'eddie', role: 'editor' }, 1280, 'Dune')
    await page.getByRole('button', { name: 'Delete “Dune”' }).click()
    await page.getByRole('dialog').getByRole('button', { name: 'Delete', exact: true }).click()
    await page.getByText('Book deleted.').waitFor()
    // The list is read again after the message is shown: the row leaves with that read.
    await page.locator('td.column-title', { hasText: /^Dune$/ }).waitFor({ state: 'detached' })
    assert.equal(await page.locator('td.column-title', { hasText: /^Dune$/ }).count(), 0)
    assert.deepEqual(await violationsInBothThemes(page, 'undo offer'), [])
    await page.getByRole('button', { name: 'Undo' }).click()
    await page.locator(`tr[data-id="${id}"] td.column-title`, { hasText: /^Dune$/ }).waitFor()
    await page.getByRole('status').filter({ hasText: 'The book is back.' }).waitFor()
    const history = await fetch(`${server.url}/book/${id}/history`, { headers: { authorization: `Bearer ${signToken()}` } })
    const entries = ((await history.json()) as { data: Array<{ version: number; operation: string; actor: string }> }).data
    assert.deepEqual(entries.slice(0, 2).map((entry) => [entry.version, entry.operation, entry.actor]), [[6, 'restored'], [5, 'deleted']].map(([v, o]) => [v, o, 'eddie']))
    assertNoProblems(watch)
  })

  test('a phone (390 px): the History view fits the screen', { skip }, async () => {
    const { page, watch } = await tab({ sub: 'eddie', role: 'editor' }, 390, 'Dune')
    await page.getByRole('button', { name: 'History of “Dune”' }).click()
    await page.getByRole('dialog').locator('tbody tr').first().waitFor()
    assert.equal(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), true)
    assert.deepEqual(await violationsInBothThemes(page, 'history at 390 px'), [])
    assertNoProblems(watch)
  })
})
