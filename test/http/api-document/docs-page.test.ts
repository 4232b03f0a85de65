import assert from 'node:assert/strict'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { chromium, type BrowserContext, type Locator, type Page } from 'playwright-core'
import { TEST_PASSWORD, authHeaders } from '../../support/app.js'
import { removeDirectory, startServer, temporaryDirectory, type RunningServer } from '../../support/server.js'
import { browserScopeSkipReason, processSkipReason } from '../../support/scope.js'

/**
 * The docs page end to end in a real browser: Debian's chromium driven by playwright-core (never
 * a downloaded browser). `.ci/run` installs chromium; on a machine without it each test is skipped
 * with the reason printed. Each test, not the suite, carries the skip, so every Node line counts
 * them in the summary's `skipped` total (Node 20 does not count a skipped `describe`).
 * `TEST_CHROMIUM` points at another browser binary (a missing path shows the skip).
 */
const CHROMIUM = process.env.TEST_CHROMIUM ?? '/usr/bin/chromium'
const skip = browserScopeSkipReason ?? (existsSync(CHROMIUM) ? undefined : `${CHROMIUM} not found (apt-get install chromium): docs page browser test skipped`)
if (skip) console.log(`# ${skip}`)

/** Runs the operation shown in `block` ("Try it out" is on), optionally with a JSON body, and returns the answer. */
async function execute(block: Locator, body?: unknown): Promise<{ status: number; body: { status: number; message: string; data: unknown } }> {
  if (!(await block.locator('button.execute').isVisible())) await block.locator('.opblock-summary-control').click()
  // Clear the answer of an earlier run first, so the one read below is this run's, not a stale one.
  const clear = block.locator('button.btn-clear')
  if (await clear.isVisible()) {
    await clear.click()
    await block.locator('.live-responses-table').waitFor({ state: 'detached' })
  }
  if (body !== undefined) await block.locator('textarea.body-param__text').fill(JSON.stringify(body))
  await block.locator('button.execute').click()
  const response = block.locator('.live-responses-table tr.response').first()
  await response.waitFor()
  const status = Number(await response.locator('.response-col_status').innerText())
  const text = await response.locator('.highlight-code code').innerText()
  return { status, body: JSON.parse(text) }
}

describe('GET /docs in a browser', { timeout: 120_000, skip: processSkipReason }, () => {
  let directory: string
  let server: RunningServer
  let browser: BrowserContext
  let page: Page

  before(async () => {
    if (skip) return
    directory = temporaryDirectory()
    server = await startServer({ dataDirectory: directory })
    // launchPersistentContext passes the fresh folder as --user-data-dir.
    browser = await chromium.launchPersistentContext(join(directory, 'chromium-profile'), {
      executablePath: CHROMIUM,
      headless: true,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking']
    })
    page = await browser.newPage()
  })

  after(async () => {
    if (skip) return
    await browser?.close()
    await server?.stop()
    removeDirectory(directory)
  })

  test('loads the page and its assets from the service itself, with no script errors', { skip }, async () => {
    const errors: string[] = []
    const foreign: string[] = []
    page.on('pageerror', (error) => errors.push(error.message))
    page.on('request', (request) => {
      if (!request.url().startsWith(server.url) && !request.url().startsWith('data:')) foreign.push(request.url())
    })
    const response = await page.goto(`${server.url}/docs`)
    assert.equal(response?.status(), 200)
    assert.match(response?.headers()['content-security-policy'] ?? '', /script-src 'self'/)
    await page.locator('#operations-Authentication-login').waitFor()
    assert.match(await page.locator('.info .title').innerText(), /Book service/)
    assert.deepEqual(errors, [])
    assert.deepEqual(foreign, [])
  })

  test('a person logs in, authorises, creates a book and sees it listed', { skip }, async () => {
    const books = page.locator('#operations-Books-listBooks')
    // Before authorising, the page's calls are refused.
    const refused = await execute(books)
    assert.equal(refused.status, 401)
    assert.equal(refused.body.message, 'Authorization token required')

    const login = await execute(page.locator('#operations-Authentication-login'), { username: 'admin', password: TEST_PASSWORD })
    assert.equal(login.status, 200)
    const token = (login.body.data as { token: string }).token
    assert.ok(token.split('.').length === 3)

    await page.locator('.auth-wrapper button.authorize').click()
    const dialog = page.locator('.modal-ux')
    await dialog.locator('input[type=text]').fill(token)
    await dialog.locator('button.authorize').click()
    await dialog.locator('button.btn-done').click()
    await dialog.waitFor({ state: 'detached' })

    const title = `Written in the browser ${Date.now()}`
    const created = await execute(page.locator('#operations-Books-createBook'), { title, author: 'Playwright', year: 2024 })
    assert.equal(created.status, 201)
    assert.equal(created.body.message, 'Book created successfully')
    const id = (created.body.data as { id: number }).id

    const listed = await execute(books)
    assert.equal(listed.status, 200)
    assert.deepEqual(listed.body.data, [{ id, title, author: 'Playwright', year: 2024 }])

    // And it is really stored: the API outside the page sees it too.
    const response = await fetch(`${server.url}/book/${id}`, { headers: authHeaders() })
    assert.equal(response.status, 200)
    assert.equal(((await response.json()) as { data: { title: string } }).data.title, title)
  })
})
