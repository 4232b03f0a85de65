import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { TEST_PASSWORD } from '../../test/support/app.js'
import { call, eventually } from '../../test/support/client.js'
import { removeDirectory, startServer, temporaryDirectory, type RunningServer } from '../../test/support/server.js'
import { assertNoProblems, launchBrowser, openSignedIn, signIn, skip, watchPage, type PageWatch } from './support/browser.js'

/**
 * A keeper of the collection's whole journey through the page, in a real browser against the
 * real service: sign in, add a book (refused while the year is invalid, with nothing sent), find
 * it by search, sort, edit it, meet and settle a conflict with a second browser, delete it, sign
 * out. Then the session's ends: an expired token and a revoked one return to the sign-in form
 * with a message.
 */
describe('the web page: a whole journey', { timeout: 180_000 }, () => {
  let directory: string
  let server: RunningServer
  let browser: Browser
  let context: BrowserContext
  let page: Page
  let watch: PageWatch

  /** The service's answer to `method path` with full rights, outside the page. */
  const api = (method: string, path: string, body?: unknown) => call(`${server.url}${path}`, method, body)

  const rows = () => page.locator('table.books tbody tr')
  const titles = () => page.locator('table.books tbody td.column-title').allInnerTexts()
  /** Waits until the list has loaded: the table is shown and no read of it is in flight (it is `aria-busy` while one is). */
  const loaded = () => page.locator('table.books:not([aria-busy])').waitFor()

  before(async () => {
    if (skip) return
    directory = temporaryDirectory()
    server = await startServer({ dataDirectory: directory })
    browser = await launchBrowser()
    context = await browser.newContext()
    page = await context.newPage()
    watch = await watchPage(page, server.url)
    for (const [title, author, year] of [
      ['Beloved', 'Toni Morrison', 1987],
      ['Ficciones', 'Jorge Luis Borges', 1944],
      ['Kindred', 'Octavia E. Butler', 1979]
    ] as const) {
      assert.equal((await api('POST', '/book', { title, author, year })).status, 201)
    }
  })

  after(async () => {
    if (skip) return
    await browser?.close()
    await server?.stop()
    removeDirectory(directory)
  })

  test('sign in: a wrong password is told, the right one opens the books', { skip }, async () => {
    const response = await page.goto(`${server.url}/`)
    assert.equal(response?.status(), 200)
    await page.getByLabel('Username').fill('admin')
    await page.getByLabel('Password').fill('not the password')
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page.getByRole('alert').filter({ hasText: 'Wrong username or password.' }).waitFor()
    await signIn(page, 'admin', TEST_PASSWORD)
    await loaded()
    assert.deepEqual(await titles(), ['Beloved', 'Ficciones', 'Kindred'])
    assert.equal(await page.evaluate(() => typeof sessionStorage.getItem('book-service.token')), 'string')
    assert.equal(await page.evaluate(() => localStorage.getItem('book-service.token')), null)
  })

  test('add a book: an invalid year is marked as typed and nothing is sent until it is valid', { skip }, async () => {
    await page.getByRole('button', { name: 'Add a book' }).first().click()
    const dialog = page.getByRole('dialog', { name: 'Add a book' })
    await dialog.getByLabel('Title', { exact: true }).fill('Dune')
    await dialog.getByLabel('Author').fill('Frank Herbert')
    const year = dialog.getByLabel('Year', { exact: true })
    await year.fill('19x5')
    await dialog.getByText('Year must be a whole number.').waitFor()
    assert.equal(await year.getAttribute('aria-invalid'), 'true')
    await year.fill('19650')
    await dialog.getByText('Year must be from -9999 to 9999.').waitFor()
    await dialog.getByRole('button', { name: 'Save' }).click()
    await dialog.getByText('Correct the marked fields first; nothing was sent.').waitFor()
    assert.equal(await dialog.getByLabel('Year', { exact: true }).evaluate((input) => input === document.activeElement), true)
    assert.deepEqual(watch.requests().filter((request) => request.startsWith('POST /book')), [])

    await year.fill('1965')
    assert.equal(await year.getAttribute('aria-invalid'), null)
    await dialog.getByRole('button', { name: 'Save' }).click()
    await dialog.waitFor({ state: 'detached' })
    await page.getByRole('status').filter({ hasText: 'Added “Dune”.' }).waitFor()
    assert.deepEqual(watch.requests().filter((request) => request.startsWith('POST /book')), ['POST /book'])
    await page.locator('td.column-title', { hasText: 'Dune' }).waitFor()
  })

  test('find it by search; the view is in the URL and a link reproduces it', { skip }, async () => {
    await page.getByRole('searchbox', { name: 'Search titles' }).fill('dun')
    await page.waitForFunction(() => document.querySelectorAll('table.books tbody tr').length === 1)
    assert.deepEqual(await titles(), ['Dune'])
    assert.match(page.url(), /#\/books\?q=dun$/)
    await page.getByRole('searchbox', { name: 'Search titles' }).fill('')
    await page.waitForFunction(() => document.querySelectorAll('table.books tbody tr').length === 4)

    await page.getByLabel('Year from').fill('1950')
    await page.getByLabel('Year to').fill('1980')
    await page.waitForFunction(() => document.querySelectorAll('table.books tbody tr').length === 2)
    assert.deepEqual(await titles(), ['Kindred', 'Dune'])
    const link = page.url()
    assert.match(link, /year_min=1950&year_max=1980/)

    // Another tab: its own sign-in (the token is for one tab only), then the same view.
    const other = await context.newPage()
    await other.goto(link)
    await signIn(other, 'admin', TEST_PASSWORD)
    await other.waitForFunction(() => document.querySelectorAll('table.books tbody tr').length === 2)
    assert.equal(await other.getByLabel('Year from').inputValue(), '1950')
    await other.close()
    await page.getByRole('button', { name: 'Clear filters' }).click()
    await page.waitForFunction(() => document.querySelectorAll('table.books tbody tr').length === 4)
  })

  test('search titles and authors: case and accents ignored, one typo forgiven, the matches marked (as text)', { skip }, async () => {
    const added = []
    for (const book of [
      { title: 'Cien años de soledad', author: 'Gabriel García Márquez', year: 1967 },
      { title: '<b>Bold</b> <img src=x onerror=alert(1)>', author: 'Marc <i>Markup</i>', year: 2001 }
    ]) {
      const answer = await api('POST', '/book', book)
      assert.equal(answer.status, 201)
      added.push((answer.body.data as { id: number }).id)
    }
    const box = page.getByRole('searchbox', { name: 'Search titles and authors' })
    const marks = () => page.locator('table.books tbody mark').allInnerTexts()
    await box.fill('GARCIA')
    await page.waitForFunction(() => document.querySelectorAll('table.books tbody tr').length === 1)
    assert.deepEqual(await titles(), ['Cien años de soledad'])
    assert.deepEqual(await marks(), ['García'])
    assert.match(page.url(), /#\/books\?q=GARCIA$/)
    // Across fields, a quoted phrase, and a word one edit away (marked whole).
    await box.fill('"anos de" marqez')
    await page.waitForFunction(() => document.querySelector('table.books tbody mark')?.textContent === 'años de')
    assert.deepEqual(await marks(), ['años de', 'Márquez'])
    // Markup in a book is text: marked, never interpreted.
    await box.fill('bold markup')
    await page.waitForFunction(() => document.querySelector('table.books tbody mark')?.textContent === 'Bold')
    assert.deepEqual(await marks(), ['Bold', 'Markup'])
    assert.equal(await page.locator('table.books tbody b, table.books tbody img, table.books tbody i').count(), 0)
    assert.deepEqual(await titles(), ['<b>Bold</b> <img src=x onerror=alert(1)>'])
    for (const id of added) assert.equal((await api('DELETE', `/book/${id}`)).status, 200)
    await box.fill('')
    await page.waitForFunction(() => document.querySelectorAll('table.books tbody tr').length === 4)
    assertNoProblems(watch)
  })

  test('sort by each column, both ways; the sort is remembered for the next visit', { skip }, async () => {
    const header = (name: string) => page.getByRole('columnheader', { name })
    await page.getByRole('button', { name: 'Sort by Year' }).click()
    await page.waitForFunction(() => location.hash.includes('sort=year'))
    await rows().first().locator('td.column-title', { hasText: 'Ficciones' }).waitFor()
    assert.deepEqual(await titles(), ['Ficciones', 'Dune', 'Kindred', 'Beloved'])
    assert.equal(await header('Year').getAttribute('aria-sort'), 'ascending')
    await page.getByRole('button', { name: 'Sort by Year' }).click()
    await rows().first().locator('td.column-title', { hasText: 'Beloved' }).waitFor()
    assert.equal(await header('Year').getAttribute('aria-sort'), 'descending')
    await page.getByRole('button', { name: 'Sort by Author' }).click()
    await rows().first().locator('td.column-title', { hasText: 'Dune' }).waitFor()
    assert.deepEqual(await titles(), ['Dune', 'Ficciones', 'Kindred', 'Beloved'])
    assert.equal(await header('Year').getAttribute('aria-sort'), null)

    const later = await context.newPage()
    await later.goto(`${server.url}/`)
    await signIn(later, 'admin', TEST_PASSWORD)
    assert.match(later.url(), /#\/books\?sort=author$/)
    await later.close()
  })

  test('pages: a smaller page size, next and previous', { skip }, async () => {
    await page.getByLabel('Books per page').selectOption('10')
    for (let index = 0; index < 9; index++) {
      assert.equal((await api('POST', '/book', { title: `Filler ${index}`, author: `Zz ${index}`, year: 2000 + index })).status, 201)
    }
    await page.getByRole('button', { name: 'Sort by ID' }).click()
    await page.getByText('Books 1 to 10 of 13').waitFor()
    await page.getByRole('button', { name: 'Next page' }).click()
    await page.getByText('Books 11 to 13 of 13').waitFor()
    assert.equal(await page.getByRole('button', { name: 'Next page' }).isDisabled(), true)
    await page.getByRole('button', { name: 'Previous page' }).click()
    await page.getByText('Books 1 to 10 of 13').waitFor()
    const listed = (await api('GET', '/books')).body.data as { id: number; title: string }[]
    for (const book of listed.filter((book) => book.title.startsWith('Filler'))) assert.equal((await api('DELETE', `/book/${book.id}`)).status, 200)
    await page.getByLabel('Books per page').selectOption('25')
    await page.waitForFunction(() => document.querySelectorAll('table.books tbody tr').length === 4)
  })

  test('edit it: the fields are checked as typed and the change is saved', { skip }, async () => {
    await page.getByRole('button', { name: 'Edit “Dune”' }).click()
    const dialog = page.getByRole('dialog', { name: /^Edit book \d+$/ })
    const title = dialog.getByLabel('Title', { exact: true })
    await title.waitFor()
    assert.equal(await title.inputValue(), 'Dune')
    await title.fill('   ')
    await dialog.getByText('Title must contain more than spaces').waitFor()
    await title.fill('Dune')
    await dialog.getByLabel('Year', { exact: true }).fill('1966')
    await dialog.getByRole('button', { name: 'Save' }).click()
    await dialog.waitFor({ state: 'detached' })
    await page.locator('tr', { hasText: 'Dune' }).locator('td.column-year', { hasText: '1966' }).waitFor()
    const dune = ((await api('GET', '/books?title=Dune')).body.data as { year: number }[])[0]!
    assert.equal(dune.year, 1966)
  })

  test('a conflict with a second browser: other fields merged without a question; the same field shown, keep mine or take theirs', { skip }, async () => {
    const otherContext = await browser.newContext()
    const other = await otherContext.newPage()
    await other.goto(`${server.url}/`)
    await signIn(other, 'admin', TEST_PASSWORD)

    // Both open the same book; the other saves the year first, then this one the author.
    await page.getByRole('button', { name: 'Edit “Dune”' }).click()
    const dialog = page.getByRole('dialog', { name: /^Edit book \d+$/ })
    await dialog.getByLabel('Author').fill('F. Herbert')
    await other.getByRole('button', { name: 'Edit “Dune”' }).click()
    const otherDialog = other.getByRole('dialog', { name: /^Edit book \d+$/ })
    await otherDialog.getByLabel('Year', { exact: true }).fill('1965')
    await otherDialog.getByRole('button', { name: 'Save' }).click()
    await otherDialog.waitFor({ state: 'detached' })

    await dialog.getByRole('button', { name: 'Save' }).click()
    await dialog.waitFor({ state: 'detached' })
    await page.getByRole('status').filter({ hasText: 'Saved “Dune”, merged with a change someone else made meanwhile' }).waitFor()
    const merged = ((await api('GET', '/books?title=Dune')).body.data as { author: string; year: number }[])[0]!
    assert.deepEqual([merged.author, merged.year], ['F. Herbert', 1965])

    // Both change the author: only it is asked; keep mine.
    await page.getByRole('button', { name: 'Edit “Dune”' }).click()
    await dialog.getByLabel('Author').fill('Frank H.')
    await other.getByRole('button', { name: 'Edit “Dune”' }).click()
    await otherDialog.getByLabel('Author').fill('F. H.')
    await otherDialog.getByRole('button', { name: 'Save' }).click()
    await otherDialog.waitFor({ state: 'detached' })
    await dialog.getByRole('button', { name: 'Save' }).click()
    const conflict = page.getByRole('dialog', { name: 'Someone else changed this book' })
    await conflict.waitFor()
    const row = (field: string) => conflict.getByRole('row', { name: new RegExp(`^${field}`) })
    assert.equal(await row('Author').locator('[data-version=mine]').innerText(), 'Frank H.')
    assert.equal(await row('Author').locator('[data-version=theirs]').innerText(), 'F. H.')
    assert.equal(await row('Title').count(), 0) // changed by nobody: not asked
    assert.equal(await row('Year').count(), 0)
    await conflict.getByRole('button', { name: 'Keep my version' }).click()
    await conflict.waitFor({ state: 'detached' })
    await page.getByRole('status').filter({ hasText: 'Saved “Dune”.' }).waitFor()
    const kept = ((await api('GET', '/books?title=Dune')).body.data as { author: string; year: number }[])[0]!
    assert.deepEqual([kept.author, kept.year], ['Frank H.', 1965])

    // Again, and this time take theirs.
    await page.getByRole('button', { name: 'Edit “Dune”' }).click()
    await dialog.getByLabel('Author').fill('Mine again')
    await other.getByRole('button', { name: 'Edit “Dune”' }).click()
    await otherDialog.getByLabel('Author').fill('Frank Herbert')
    await otherDialog.getByRole('button', { name: 'Save' }).click()
    await otherDialog.waitFor({ state: 'detached' })
    await dialog.getByRole('button', { name: 'Save' }).click()
    await conflict.getByRole('button', { name: 'Take the saved version' }).click()
    await conflict.waitFor({ state: 'detached' })
    await page.locator('td.column-author', { hasText: 'Frank Herbert' }).waitFor()
    const taken = ((await api('GET', '/books?title=Dune')).body.data as { author: string }[])[0]!
    assert.equal(taken.author, 'Frank Herbert')
    await otherContext.close()
  })

  test('live: a change made elsewhere shows without reloading and marks the row being edited (a stand-in feed)', { skip }, async () => {
    // The service has no change feed yet (GET /books/changes is 404): the browser answers that
    // request itself, in the feed's format (docs/contract.md "Other representations"), once the
    // change below is made through the API. What is tested is the page: reading the stream,
    // re-reading the list, marking the row, resuming with Last-Event-ID.
    const tab = await (await browser.newContext()).newPage()
    const tabWatch = await watchPage(tab, server.url)
    const feedRequests: Record<string, string>[] = []
    let deliver!: (event: string) => void
    const changed = new Promise<string>((resolve) => (deliver = resolve))
    await tab.route('**/books/changes', async (route) => {
      feedRequests.push(route.request().headers())
      // The first connection gets the change, then ends; the reconnection waits for good.
      if (feedRequests.length > 1) return
      await route.fulfill({ status: 200, headers: { 'content-type': 'text/event-stream' }, body: await changed })
    })
    await openSignedIn(tab, `${server.url}/`, { sub: 'admin', role: 'admin' })
    await eventually('the page asks for the feed', async () => feedRequests.length === 1)
    assert.equal(await tab.locator('.live').innerText(), 'Connecting…')
    await tab.getByRole('button', { name: 'Edit “Dune”' }).click()
    await tab.getByRole('dialog').getByLabel('Title', { exact: true }).waitFor()

    const dune = ((await api('GET', '/books?title=Dune')).body.data as { id: number }[])[0]!
    const updated = (await api('PUT', `/book/${dune.id}`, { title: 'Dune (changed elsewhere)' })).body.data
    deliver(`id: 41\nevent: updated\ndata: ${JSON.stringify({ id: dune.id, book: updated })}\n\n`)

    await tab.getByRole('dialog').getByText('Someone else changed this book while you were editing it.').waitFor()
    await tab.locator(`tr[data-id="${dune.id}"].changed`, { hasText: 'changed by someone else' }).waitFor()
    await tab.keyboard.press('Escape')
    await tab.locator(`tr[data-id="${dune.id}"].changed`, { hasText: 'changed by someone else' }).waitFor({ state: 'detached' })
    await tab.locator('td.column-title', { hasText: 'Dune (changed elsewhere)' }).waitFor()
    await eventually('the feed reconnects', async () => feedRequests.length === 2)
    assert.equal(feedRequests[0]!['last-event-id'], undefined)
    assert.equal(feedRequests[1]!['last-event-id'], '41')
    assert.match(feedRequests[1]!.authorization ?? '', /^Bearer /)
    assert.equal((await api('PUT', `/book/${dune.id}`, { title: 'Dune' })).status, 200)
    assertNoProblems(tabWatch)
    await tab.context().close()
  })

  test('delete it, after a confirmation; several at once', { skip }, async () => {
    await page.getByRole('button', { name: 'Delete “Dune”' }).click()
    const confirm = page.getByRole('dialog', { name: 'Delete this book?' })
    await confirm.getByText('“Dune” by Frank Herbert (1965)').waitFor()
    await confirm.getByRole('button', { name: 'Cancel' }).click()
    assert.equal(await rows().count(), 4)
    await page.getByRole('button', { name: 'Delete “Dune”' }).click()
    await confirm.getByRole('button', { name: 'Delete' }).click()
    await page.getByRole('status').filter({ hasText: 'Deleted 1 book.' }).waitFor()
    await page.waitForFunction(() => document.querySelectorAll('table.books tbody tr').length === 3)
    assert.deepEqual((await api('GET', '/books?title=Dune')).body.data, [])

    await page.getByRole('checkbox', { name: 'Select “Beloved”' }).check()
    await page.getByRole('checkbox', { name: 'Select “Kindred”' }).check()
    await page.getByRole('button', { name: 'Delete selected (2)' }).click()
    await page.getByRole('dialog', { name: 'Delete 2 books?' }).getByRole('button', { name: 'Delete' }).click()
    await page.getByRole('status').filter({ hasText: 'Deleted 2 books.' }).waitFor()
    await page.waitForFunction(() => document.querySelectorAll('table.books tbody tr').length === 1)
    assert.deepEqual(await titles(), ['Ficciones'])
  })

  test('sign out: back to the sign-in form, the token forgotten', { skip }, async () => {
    await page.getByRole('button', { name: 'Sign out' }).click()
    await page.getByText('You are signed out.').waitFor()
    assert.equal(await page.evaluate(() => sessionStorage.getItem('book-service.token')), null)
    await page.reload()
    await page.getByRole('button', { name: 'Sign in' }).waitFor()
    assertNoProblems(watch)
  })

  test('an expired token returns the person to the sign-in form with a message', { skip }, async () => {
    const tab = await context.newPage()
    const tabWatch = await watchPage(tab, server.url)
    // Expiring in 2 s: the page may open before or after that (a loaded machine); either way it
    // ends the session with the message, the timer while the books show or the check at start.
    await openSignedIn(tab, `${server.url}/`, { sub: 'admin', role: 'admin', exp: Math.floor(Date.now() / 1000) + 2 })
    await tab.getByText('Your session has expired. Sign in again to continue.').waitFor()
    await tab.getByRole('button', { name: 'Sign in' }).waitFor()
    assertNoProblems(tabWatch)
    await tab.close()
  })

  test('a revoked token (the account changed) returns to the sign-in form at the next call', { skip }, async () => {
    const username = 'revoked-editor'
    assert.equal((await api('POST', '/users', { username, password: 'first password 123', role: 'editor' })).status, 201)
    const tab = await context.newPage()
    const tabWatch = await watchPage(tab, server.url)
    await tab.goto(`${server.url}/`)
    await signIn(tab, username, 'first password 123')
    assert.equal((await api('PUT', `/users/${username}`, { password: 'second password 456' })).status, 200)
    await tab.getByRole('searchbox', { name: 'Search titles' }).fill('any')
    await tab.getByText('Your session has ended').waitFor()
    await tab.getByRole('button', { name: 'Sign in' }).waitFor()
    assert.ok(tabWatch.requests().some((request) => request.startsWith('GET /books?q=any')))
    assertNoProblems(tabWatch)
    await tab.close()
  })
})
