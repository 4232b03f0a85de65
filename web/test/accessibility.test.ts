import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { Browser, Page } from 'playwright-core'
import { TEST_PASSWORD } from '../../test/support/app.js'
import { call } from '../../test/support/client.js'
import { removeDirectory, startServer, temporaryDirectory, type RunningServer } from '../../test/support/server.js'
import { assertNoProblems, launchBrowser, openSignedIn, signIn, skip, violationsInBothThemes, watchPage, type PageWatch } from './support/browser.js'

/**
 * Every view of the page, for everyone: axe-core finds no serious or critical violation in the
 * light and the dark theme; no console error and no CSP violation on the way; the page works by
 * keyboard alone with a visible focus; it fits a phone (390 px) and a desktop (1440 px).
 */
describe('the web page for everyone', { timeout: 240_000 }, () => {
  let directory: string
  let server: RunningServer
  let browser: Browser
  let page: Page
  let watch: PageWatch

  async function api(method: string, path: string, body?: unknown) {
    const answer = await call(`${server.url}${path}`, method, body)
    assert.ok(answer.status < 300, `${method} ${path}: ${answer.status}`)
  }

  const violations: string[] = []
  async function check(view: string) {
    violations.push(...(await violationsInBothThemes(page, view)))
  }

  before(async () => {
    if (skip) return
    directory = temporaryDirectory()
    server = await startServer({ dataDirectory: directory })
    browser = await launchBrowser()
    page = await (await browser.newContext({ viewport: { width: 1440, height: 900 } })).newPage()
    watch = await watchPage(page, server.url)
  })

  after(async () => {
    if (skip) return
    await browser?.close()
    await server?.stop()
    removeDirectory(directory)
  })

  test('every view and dialog, light and dark: no serious or critical axe violation', { skip }, async () => {
    await page.goto(`${server.url}/`)
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page.getByText('Enter your username and password.').waitFor()
    await check('sign-in with a message')
    await signIn(page, 'admin', TEST_PASSWORD)
    await page.getByText('There are no books in the collection yet.').waitFor()
    await check('books, empty')

    await page.getByRole('button', { name: 'Add a book' }).first().click()
    const dialog = page.getByRole('dialog', { name: 'Add a book' })
    await dialog.getByLabel('Year', { exact: true }).fill('year')
    await dialog.getByRole('button', { name: 'Save' }).click()
    await dialog.getByText('Title is required.').waitFor()
    await check('add dialog with errors')
    await dialog.press('Escape')
    await dialog.waitFor({ state: 'detached' })

    for (let index = 1; index <= 30; index++) await api('POST', '/book', { title: `Book ${index}`, author: `Author ${index % 7}`, year: 1900 + index })
    await page.reload()
    await page.getByText('Books 1 to 25 of 30').waitFor()
    await page.getByRole('checkbox', { name: 'Select “Book 2”' }).check()
    await check('books with a selection')

    await page.getByRole('button', { name: 'Edit “Book 1”' }).click()
    const edit = page.getByRole('dialog', { name: 'Edit book 1' })
    await edit.getByLabel('Author').fill('Changed here')
    await api('PUT', '/book/1', { author: 'Changed there' })
    // The live feed's notice goes above the fields: wait for it, so the click on Save does not land
    // while it moves the button.
    await edit.getByText('Someone else changed this book while you were editing it.').waitFor()
    await edit.getByRole('button', { name: 'Save' }).click()
    await page.getByRole('dialog', { name: 'Someone else changed this book' }).waitFor()
    await check('conflict dialog')
    await page.getByRole('button', { name: 'Take the saved version' }).click()

    await page.getByRole('button', { name: 'Delete selected (1)' }).click()
    await page.getByRole('dialog', { name: 'Delete this book?' }).waitFor()
    await check('delete confirmation')
    await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click()

    await page.getByRole('link', { name: 'Accounts' }).click()
    await page.locator('table.accounts tbody tr').first().waitFor()
    await page.locator('form.add-account').getByRole('button', { name: 'Add an account' }).click()
    await page.getByText('The password must be 12 to 1024 characters.').waitFor()
    await check('accounts with form errors')
    await page.getByRole('button', { name: 'Reset password of admin' }).click()
    await page.getByRole('dialog').getByLabel('New password').waitFor()
    await check('reset password dialog')
    await page.getByRole('dialog').press('Escape')

    await page.getByRole('link', { name: 'Import and export' }).click()
    await page.getByRole('heading', { level: 2, name: 'Import' }).waitFor()
    await page.getByLabel('File to import').setInputFiles({ name: 'books.csv', mimeType: 'text/csv', buffer: Buffer.from('title,author,year\nA,B,19x5\n') })
    await page.getByText('Line 2: Year must be a whole number.').waitFor()
    await check('import and export with invalid rows')

    assert.deepEqual(violations, [])
    assertNoProblems(watch)
  })

  test('by keyboard alone, with the focus always visible', { skip }, async () => {
    const tab = await (await browser.newContext()).newPage()
    const tabWatch = await watchPage(tab, server.url)
    await tab.goto(`${server.url}/`)
    const focused = () =>
      tab.evaluate(() => {
        const element = document.activeElement as HTMLElement
        const style = getComputedStyle(element)
        return { name: element.getAttribute('aria-label') ?? element.textContent?.trim() ?? '', tag: element.tagName, outline: style.outlineStyle, width: style.outlineWidth }
      })
    /** Waits (5 s at most) until the focus is on the element named `name`: a dialog gives it back once it has closed. */
    const focusReturnsTo = (name: string) =>
      tab.waitForFunction(
        (expected) => {
          const element = document.activeElement as HTMLElement | null
          return (element?.getAttribute('aria-label') ?? element?.textContent?.trim()) === expected
        },
        name,
        { timeout: 5000 }
      )
    /** Presses Tab until the focus is on `name`, checking the focus ring of each stop. */
    async function tabTo(name: string) {
      for (let stop = 0; stop < 60; stop++) {
        await tab.keyboard.press('Tab')
        const now = await focused()
        assert.notEqual(now.outline, 'none', `focus not visible on ${now.tag} ${now.name}`)
        if (now.name === name) return
      }
      assert.fail(`${name} not reached by Tab`)
    }

    await tab.getByLabel('Username').waitFor()
    await tab.keyboard.press('Tab')
    await tab.keyboard.type('admin')
    await tab.keyboard.press('Tab')
    await tab.keyboard.type(TEST_PASSWORD)
    await tab.keyboard.press('Enter')
    await tab.getByText('Books 1 to 25 of 30').waitFor()

    await tabTo('Add a book')
    await tab.keyboard.press('Enter')
    const dialog = tab.getByRole('dialog', { name: 'Add a book' })
    await dialog.waitFor()
    await tab.keyboard.type('Typed by keyboard')
    await tab.keyboard.press('Tab')
    await tab.keyboard.type('Someone')
    await tab.keyboard.press('Tab')
    await tab.keyboard.type('2001')
    await tab.keyboard.press('Enter')
    await dialog.waitFor({ state: 'detached' })
    await tab.getByRole('status').filter({ hasText: 'Added “Typed by keyboard”.' }).waitFor()
    // Focus came back to the button that opened the dialog.
    await focusReturnsTo('Add a book')

    await tabTo('Sort by Year')
    await tab.keyboard.press('Enter')
    await tab.waitForFunction(() => location.hash.includes('sort=year'))
    await tabTo('Edit “Book 1”')
    await tab.keyboard.press('Enter')
    await tab.getByRole('dialog', { name: 'Edit book 1' }).getByLabel('Title', { exact: true }).waitFor()
    await tab.keyboard.press('Escape')
    await tab.getByRole('dialog').waitFor({ state: 'detached' })
    await focusReturnsTo('Edit “Book 1”')
    assertNoProblems(tabWatch)
    await tab.context().close()
  })

  test('a phone (390 px) and a desktop (1440 px): nothing wider than the screen', { skip }, async () => {
    const found: string[] = []
    for (const width of [390, 1440]) {
      const context = await browser.newContext({ viewport: { width, height: 844 } })
      const tab = await context.newPage()
      const tabWatch = await watchPage(tab, server.url)
      await openSignedIn(tab, `${server.url}/#/books?limit=10`, { sub: 'admin', role: 'admin' })
      await tab.getByText('Books 1 to 10 of 31').waitFor()
      const fits = () => tab.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)
      assert.equal(await fits(), true, `books at ${width} px`)
      for (const view of ['accounts', 'transfer']) {
        await tab.goto(`${server.url}/#/${view}`)
        await tab.locator('main h2, main table').first().waitFor()
        assert.equal(await fits(), true, `${view} at ${width} px`)
      }
      await tab.goto(`${server.url}/#/books`)
      await tab.getByRole('button', { name: 'Edit “Book 1”' }).click()
      await tab.getByRole('dialog').getByLabel('Title', { exact: true }).waitFor()
      assert.equal(await fits(), true, `edit dialog at ${width} px`)
      found.push(...(await violationsInBothThemes(tab, `edit dialog at ${width} px`)))
      await tab.keyboard.press('Escape')
      found.push(...(await violationsInBothThemes(tab, `books at ${width} px`)))
      assertNoProblems(tabWatch)
      await context.close()
    }
    assert.deepEqual(found, [])
  })
})
