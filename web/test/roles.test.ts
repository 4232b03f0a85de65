import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { Browser, Page } from 'playwright-core'
import { TEST_PASSWORD } from '../../test/support/app.js'
import { call } from '../../test/support/client.js'
import { removeDirectory, startServer, temporaryDirectory, type RunningServer } from '../../test/support/server.js'
import { assertNoProblems, launchBrowser, signIn, skip, watchPage } from './support/browser.js'

/**
 * Roles in the page, against the real service: a reader sees no add, edit or delete control and
 * the API refuses them anyway; an editor gets import and export; an admin also the accounts,
 * with every change of an account and the last admin's refusal shown as a message.
 */
describe('the web page by role', { timeout: 180_000 }, () => {
  let directory: string
  let server: RunningServer
  let browser: Browser

  /** The service's answer to `method path` with full rights, outside the page. */
  const api = (method: string, path: string, body?: unknown) => call(`${server.url}${path}`, method, body)

  /** The status of `method path` sent with `token` (and a JSON body when given). */
  async function statusWith(token: string | undefined, method: string, path: string, body?: unknown): Promise<number> {
    const headers: Record<string, string> = { 'content-type': 'application/json' }
    if (token !== undefined) headers.authorization = `Bearer ${token}`
    const response = await fetch(`${server.url}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) })
    await response.body?.cancel()
    return response.status
  }

  /** A new tab signed in as `username`. */
  async function tabOf(username: string, password: string): Promise<{ page: Page; watch: Awaited<ReturnType<typeof watchPage>> }> {
    const context = await browser.newContext()
    const page = await context.newPage()
    const watch = await watchPage(page, server.url)
    await page.goto(`${server.url}/`)
    await signIn(page, username, password)
    return { page, watch }
  }

  before(async () => {
    if (skip) return
    directory = temporaryDirectory()
    server = await startServer({ dataDirectory: directory })
    browser = await launchBrowser()
    assert.equal((await api('POST', '/book', { title: 'Dune', author: 'Frank Herbert', year: 1965 })).status, 201)
    assert.equal((await api('POST', '/users', { username: 'rita', password: 'reader password', role: 'reader' })).status, 201)
    assert.equal((await api('POST', '/users', { username: 'eddie', password: 'editor password', role: 'editor' })).status, 201)
  })

  after(async () => {
    if (skip) return
    await browser?.close()
    await server?.stop()
    removeDirectory(directory)
  })

  test('a reader sees the books and no control to change them; the API refuses anyway', { skip }, async () => {
    const { page, watch } = await tabOf('rita', 'reader password')
    await page.locator('td.column-title', { hasText: 'Dune' }).waitFor()
    assert.match(await page.locator('.who').innerText(), /Signed in as rita \(reader\)/)
    assert.equal(await page.getByRole('button', { name: /Add a book|Edit|Delete/ }).count(), 0)
    assert.equal(await page.getByRole('checkbox').count(), 0)
    // The one action a reader has on a book: its History (README "History and restore").
    assert.deepEqual(await page.locator('td.actions button').allInnerTexts(), ['History'])
    assert.deepEqual(await page.getByRole('navigation', { name: 'Main' }).getByRole('link').allInnerTexts(), ['Books', 'API tokens'])
    // Sorting and paging are reading: they stay.
    await page.getByRole('button', { name: 'Sort by Title' }).click()
    await page.waitForFunction(() => location.hash.includes('sort=title'))

    await page.goto(`${server.url}/#/accounts`)
    await page.getByText('Your account is not allowed to do this.').waitFor()
    await page.goto(`${server.url}/#/transfer`)
    await page.getByText('Your account is not allowed to do this.').waitFor()

    // The page's own token, used directly: the service refuses every change.
    const token = await page.evaluate(() => sessionStorage.getItem('book-service.token')!)
    assert.equal(await statusWith(token, 'POST', '/book', { title: 'X', author: 'Y', year: 1 }), 403)
    assert.equal(await statusWith(token, 'PUT', '/book/1', { year: 1 }), 403)
    assert.equal(await statusWith(token, 'DELETE', '/book/1'), 403)
    assert.equal(await statusWith(token, 'GET', '/users'), 403)
    assert.equal(await statusWith(token, 'GET', '/book/1'), 200)
    assertNoProblems(watch)
    await page.context().close()
  })

  test('an editor changes books and gets import and export, not the accounts', { skip }, async () => {
    const { page, watch } = await tabOf('eddie', 'editor password')
    await page.getByRole('button', { name: 'Edit “Dune”' }).waitFor()
    assert.deepEqual(await page.getByRole('navigation', { name: 'Main' }).getByRole('link').allInnerTexts(), ['Books', 'Import and export', 'API tokens'])
    await page.goto(`${server.url}/#/accounts`)
    await page.getByText('Your account is not allowed to do this.').waitFor()
    assertNoProblems(watch)
    await page.context().close()
  })

  test('an admin manages the accounts: add with a role, change the role, reset the password, delete', { skip }, async () => {
    const { page, watch } = await tabOf('admin', TEST_PASSWORD)
    await page.getByRole('link', { name: 'Accounts' }).click()
    await page.getByRole('heading', { level: 1, name: 'Accounts' }).waitFor()
    assert.equal(await page.getByRole('heading', { level: 1, name: 'Accounts' }).evaluate((heading) => heading === document.activeElement), true)
    const table = page.locator('table.accounts')
    await table.locator('tr[data-username=rita]').waitFor()
    assert.deepEqual(await table.locator('tbody td:first-child').allInnerTexts(), ['admin', 'eddie', 'rita'])

    const form = page.locator('form.add-account')
    await form.getByLabel('Username').fill(' alice')
    await form.getByLabel('Password').fill('short')
    await form.getByRole('button', { name: 'Add an account' }).click()
    await form.getByText('The username must be 1 to 64 characters').waitFor()
    await form.getByText('The password must be 12 to 1024 characters.').waitFor()
    await form.getByLabel('Username').fill('alice')
    await form.getByLabel('Password').fill('alice password 1')
    await form.getByLabel('Role').selectOption('editor')
    await form.getByRole('button', { name: 'Add an account' }).click()
    await page.getByRole('status').filter({ hasText: 'Added the account alice.' }).waitFor()
    await table.locator('tr[data-username=alice] td', { hasText: /^editor$/ }).waitFor()
    assert.equal(await statusWith(undefined, 'POST', '/login', { username: 'alice', password: 'alice password 1' }), 200)

    // A name taken (ignoring case) is told.
    await form.getByLabel('Username').fill('ALICE')
    await form.getByLabel('Password').fill('alice password 1')
    await form.getByRole('button', { name: 'Add an account' }).click()
    await form.getByText('An account with this username already exists').waitFor()

    await page.getByRole('button', { name: 'Change role of alice' }).click()
    const roleDialog = page.getByRole('dialog', { name: 'Change role of alice' })
    await roleDialog.getByLabel('Role').selectOption('reader')
    await roleDialog.getByRole('button', { name: 'Save' }).click()
    await page.getByRole('status').filter({ hasText: 'alice is now reader.' }).waitFor()
    await table.locator('tr[data-username=alice] td', { hasText: /^reader$/ }).waitFor()

    await page.getByRole('button', { name: 'Reset password of alice' }).click()
    const passwordDialog = page.getByRole('dialog', { name: 'Reset password of alice' })
    await passwordDialog.getByLabel('New password').fill('too short')
    await passwordDialog.getByRole('button', { name: 'Save' }).click()
    await passwordDialog.getByText('The password must be 12 to 1024 characters.').waitFor()
    await passwordDialog.getByLabel('New password').fill('alice password 2')
    await passwordDialog.getByRole('button', { name: 'Save' }).click()
    await page.getByRole('status').filter({ hasText: 'The password of alice was changed.' }).waitFor()
    assert.equal(await statusWith(undefined, 'POST', '/login', { username: 'alice', password: 'alice password 2' }), 200)

    await page.getByRole('button', { name: 'Delete alice' }).click()
    await page.getByRole('dialog', { name: 'Delete alice' }).getByRole('button', { name: 'Delete' }).click()
    await page.getByRole('status').filter({ hasText: 'Deleted the account alice.' }).waitFor()
    await table.locator('tr[data-username=alice]').waitFor({ state: 'detached' })
    assert.equal(((await api('GET', '/users')).body.data as { username: string }[]).some((account) => account.username === 'alice'), false)
    assertNoProblems(watch)
    await page.context().close()
  })

  test('the last admin cannot be demoted or deleted: the 409 is shown as a message', { skip }, async () => {
    const { page, watch } = await tabOf('admin', TEST_PASSWORD)
    await page.goto(`${server.url}/#/accounts`)
    await page.getByRole('button', { name: 'Change role of admin' }).click()
    const roleDialog = page.getByRole('dialog', { name: 'Change role of admin' })
    await roleDialog.getByLabel('Role').selectOption('editor')
    await roleDialog.getByRole('button', { name: 'Save' }).click()
    await roleDialog.getByRole('alert').filter({ hasText: 'This is the last admin account: make another account admin first.' }).waitFor()
    await roleDialog.getByRole('button', { name: 'Cancel' }).click()

    await page.getByRole('button', { name: 'Delete admin' }).click()
    const deleteDialog = page.getByRole('dialog', { name: 'Delete admin' })
    await deleteDialog.getByRole('button', { name: 'Delete' }).click()
    await deleteDialog.getByRole('alert').filter({ hasText: 'This is the last admin account' }).waitFor()
    assert.equal(((await api('GET', '/users')).body.data as { username: string; role: string }[]).find((account) => account.username === 'admin')?.role, 'admin')
    assertNoProblems(watch)
    await page.context().close()
  })
})
