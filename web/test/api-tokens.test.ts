import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { call, eventually } from '../../test/support/client.js'
import { removeDirectory, startServer, temporaryDirectory, type RunningServer } from '../../test/support/server.js'
import { assertNoProblems, launchBrowser, openSignedIn, skip, violationsInBothThemes, watchPage, type PageWatch } from './support/browser.js'

/**
 * The API tokens view in Chromium, through accessible names (docs/api-tokens.md): make a token,
 * shown once with a Copy button that puts it on the clipboard; the token works and the list then
 * shows its last use; revoke after a confirmation (Cancel keeps it), after which it is refused; a
 * reader is offered no role above its own; axe-core finds no serious violation in either theme.
 */
describe('the web page: API tokens', { timeout: 240_000 }, () => {
  let directory: string
  let server: RunningServer
  let browser: Browser
  let context: BrowserContext
  let page: Page
  let watch: PageWatch
  const violations: string[] = []

  before(async () => {
    if (skip) return
    directory = temporaryDirectory()
    server = await startServer({ dataDirectory: directory })
    browser = await launchBrowser()
    context = await browser.newContext({ viewport: { width: 1280, height: 800 } })
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url })
    page = await context.newPage()
    watch = await watchPage(page, server.url)
  })
  after(async () => {
    if (skip) return
    await browser?.close()
    await server?.stop()
    removeDirectory(directory)
  })

  /** The answer's status to `GET /books` with `token`. */
  const statusWith = async (token: string) => (await fetch(`${server.url}/books`, { headers: { authorization: `Bearer ${token}` } })).status

  test('create, shown once and copied, used, revoked after a confirmation; no axe violation', { skip }, async () => {
    await openSignedIn(page, `${server.url}/#/tokens`, { sub: 'admin', role: 'admin' })
    await page.getByRole('heading', { level: 1, name: 'API tokens' }).waitFor()
    await page.getByText('No API token yet.').waitFor()
    violations.push(...(await violationsInBothThemes(page, 'API tokens, empty')))

    // A name is required: nothing is sent without one.
    await page.getByRole('button', { name: 'Create a token' }).click()
    await page.getByText('Enter a name of 1 to 100 characters, on one line.').waitFor()
    await page.getByLabel('Name').fill('catalogue sync')
    await page.getByLabel('Role').selectOption('reader')
    await page.getByLabel('Expires after (days, optional)').fill('90')
    await page.getByRole('button', { name: 'Create a token' }).click()

    const dialog = page.getByRole('dialog', { name: 'Your new token “catalogue sync”' })
    await dialog.waitFor()
    const token = (await dialog.locator('[data-token-value]').textContent())!
    assert.match(token, /^eyJ[\w-]+\.[\w-]+\.[\w-]+$/)
    await dialog.getByRole('button', { name: 'Copy the token' }).click()
    await dialog.getByText('Copied.').waitFor()
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), token)
    violations.push(...(await violationsInBothThemes(page, 'new token dialog')))
    await dialog.getByRole('button', { name: 'Close' }).click()
    await dialog.waitFor({ state: 'detached' })
    assert.equal(await page.getByText(token).count(), 0, 'the token is not shown again')

    const row = page.locator('tr[data-token]')
    await row.getByText('not used yet').waitFor()
    assert.match((await row.textContent())!, /catalogue sync.*reader/)

    // The program uses it: the list then shows when.
    assert.equal(await statusWith(token), 200)
    await eventually('the last use listed', async () => {
      await page.reload()
      await row.waitFor()
      return (await row.getByText('not used yet').count()) === 0
    })
    violations.push(...(await violationsInBothThemes(page, 'API tokens, one used')))

    // Revoke: Cancel keeps it; Revoke in the confirmation revokes it, and the token is refused.
    await page.getByRole('button', { name: 'Revoke “catalogue sync”' }).click()
    const confirm = page.getByRole('dialog', { name: 'Revoke “catalogue sync”' })
    await confirm.getByText(/Every program that uses it is refused/).waitFor()
    violations.push(...(await violationsInBothThemes(page, 'revoke confirmation')))
    await confirm.getByRole('button', { name: 'Cancel' }).click()
    await confirm.waitFor({ state: 'detached' })
    assert.equal(await statusWith(token), 200, 'Cancel revokes nothing')
    await page.getByRole('button', { name: 'Revoke “catalogue sync”' }).click()
    await confirm.getByRole('button', { name: 'Revoke', exact: true }).click()
    await confirm.waitFor({ state: 'detached' })
    await page.getByText('No API token yet.').waitFor()
    await page.getByRole('status').getByText('Token “catalogue sync” revoked.').waitFor()
    assert.equal(await statusWith(token), 401)

    await page.setViewportSize({ width: 390, height: 844 })
    assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), 'fits a phone')
    assert.deepEqual(violations, [])
    assertNoProblems(watch)
  })

  test('an admin lists every account\'s tokens; a reader is offered no role above its own', { skip }, async () => {
    assert.equal((await call(`${server.url}/users`, 'POST', { username: 'rita', password: 'a long reader password', role: 'reader' })).status, 201)
    const readerPage = await context.newPage()
    await openSignedIn(readerPage, `${server.url}/#/tokens`, { sub: 'rita', role: 'reader' })
    await readerPage.getByRole('heading', { level: 1, name: 'API tokens' }).waitFor()
    assert.deepEqual(await readerPage.getByLabel('Role').locator('option').allTextContents(), ['reader'])
    assert.equal(await readerPage.getByRole('checkbox', { name: 'Show every account\'s tokens' }).count(), 0)
    await readerPage.getByLabel('Name').fill('rita\'s script')
    await readerPage.getByRole('button', { name: 'Create a token' }).click()
    await readerPage.getByRole('dialog', { name: 'Your new token “rita\'s script”' }).getByRole('button', { name: 'I have copied it' }).click()
    await readerPage.locator('tr[data-token]').getByText('rita\'s script').waitFor()

    await page.setViewportSize({ width: 1280, height: 800 })
    await page.getByText('No API token yet.').waitFor()
    await page.getByRole('checkbox', { name: 'Show every account\'s tokens' }).check()
    const row = page.locator('tr[data-token]')
    await row.getByText('rita\'s script').waitFor()
    assert.match((await row.textContent())!, /rita's script.*rita.*reader/)
  })
})
